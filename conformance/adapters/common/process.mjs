// Runs a peer's program once: arguments, optional stdin, cwd and env in;
// exit code, signal and both output streams out. Never throws for a
// failed or killed program: the adapter judges the result.

import { spawn } from 'node:child_process';

/**
 * `options`: {cwd, env, input (string written to stdin, then closed),
 * argv0 (the name the program sees as argv[0]), timeoutMs}.
 * Resolves {code, signal, stdout, stderr, timedOut, spawnError}.
 */
export function runProcess(file, args, options = {}) {
  const { cwd, env, input, argv0, timeoutMs } = options;
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(file, args, { cwd, env, argv0, stdio: ['pipe', 'pipe', 'pipe'] });
    } catch (e) {
      resolve({ code: null, signal: null, stdout: '', stderr: '', timedOut: false, spawnError: e });
      return;
    }
    const out = [];
    const err = [];
    let timedOut = false;
    let spawnError;
    const timer = timeoutMs
      ? setTimeout(() => {
          timedOut = true;
          child.kill('SIGKILL');
        }, timeoutMs)
      : undefined;
    child.stdout.on('data', (chunk) => out.push(chunk));
    child.stderr.on('data', (chunk) => err.push(chunk));
    child.on('error', (e) => {
      spawnError = e;
    });
    child.stdin.on('error', () => {}); // the program may exit before reading stdin
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      resolve({
        code,
        signal,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        timedOut,
        spawnError,
      });
    });
    child.stdin.end(input ?? '');
  });
}
