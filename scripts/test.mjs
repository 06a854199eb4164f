#!/usr/bin/env node
// Runs the whole test suite: `npm test`. Extra arguments go to jest.
import { spawnSync } from 'node:child_process';

const args = process.argv.slice(2);
const run = spawnSync('npx', ['jest', '--ci', ...args], { stdio: 'inherit', env: process.env });
process.exit(run.status ?? 1);
