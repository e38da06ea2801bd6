import { arch, cpus, freemem, loadavg, release, totalmem, type } from 'node:os';

export interface MachineDescription {
  cpu: string;
  cores: number;
  memoryGiB: number;
  freeMemoryGiB: number;
  os: string;
  node: string;
  /** 1-minute load average when described: other work on the machine skews every figure. */
  loadAverage: number;
}

/** What a reader needs to compare figures across machines. */
export function describeMachine(): MachineDescription {
  const processors = cpus();
  return {
    cpu: processors[0]?.model.trim() ?? 'unknown',
    cores: processors.length,
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    freeMemoryGiB: Math.round((freemem() / 2 ** 30) * 10) / 10,
    os: `${type()} ${release()} ${arch()}`,
    node: process.version,
    loadAverage: Math.round((loadavg()[0] ?? 0) * 100) / 100,
  };
}

export function formatMachine(machine: MachineDescription): string {
  return `${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB} GiB RAM (${machine.freeMemoryGiB} free), ${machine.os}, Node ${machine.node}, load average ${machine.loadAverage}`;
}
