import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';

// A server of a test's own, on a data directory of its own: for tests that stop and start
// it, or need a store in a state the suite's server is not in (no users yet).
const bin = process.env.AGENT_OS_BIN;
const siteRoot = process.env.AGENT_OS_SITE_ROOT;

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export class OwnServer {
  private child?: ChildProcess;
  /** Everything the server wrote to stderr since its last start. */
  stderr = '';

  constructor(readonly port: number, readonly dataDir: string) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** `env` adds to the server's environment for this start only (crash and pause points). */
  async start(env: Record<string, string> = {}): Promise<void> {
    if (!bin || !siteRoot) {
      throw new Error('AGENT_OS_BIN and AGENT_OS_SITE_ROOT are not set: run the suite with `make test`');
    }
    this.stderr = '';
    this.child = spawn(bin, ['serve', '--addr', `127.0.0.1:${this.port}`, '--data-dir', this.dataDir, '--site-root', siteRoot], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, RUST_LOG: 'warn', ...env },
    });
    this.child.stderr?.on('data', (chunk: Buffer) => {
      this.stderr += chunk.toString();
    });
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      try {
        if ((await fetch(`${this.url}/healthz`)).ok) return;
      } catch {
        // not listening yet
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`the server on port ${this.port} did not start`);
  }

  /** SIGTERM: the server is told to stop, as by a service manager. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }

  /** Resolves once the server has exited by itself (at a crash point). */
  async exited(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    await new Promise((resolve) => child.once('exit', resolve));
  }

  /** SIGKILL: no shutdown hook runs, as when the machine loses power. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }
}
