#!/usr/bin/env node
// Node 22.1+ keeps compiled code between runs; on older versions this is a no-op.
import module from 'node:module';
module.enableCompileCache?.();
import('../dist/cli/main.js');
