// bin/docwright.js as it was before the compiled build (issue 12): the TypeScript sources
// run through tsx, compiled at run time. The `startup` suite's baseline.
import { register } from 'tsx/esm/api';

register();
await import('../../src/cli/main.ts');
