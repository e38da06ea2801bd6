/**
 * Whether this process wants new traffic. `/readyz` answers 503 once draining has begun,
 * so a load balancer that checks it stops sending requests while the process finishes
 * what it has; `/healthz` (liveness) is not affected: a draining process is not broken.
 */
export class Readiness {
  private draining = false;

  get isDraining(): boolean {
    return this.draining;
  }

  startDraining(): void {
    this.draining = true;
  }
}
