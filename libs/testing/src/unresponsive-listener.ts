import { spawn } from 'node:child_process';

/**
 * A TCP port on 127.0.0.1 whose accept queue is full, so new connections hang in SYN_SENT: the
 * only way to produce a connect timeout on loopback. Node always accepts, so a tiny python3
 * process holds the listening socket with a backlog of 0 and never calls accept().
 */
export async function startUnresponsiveListener(): Promise<{ port: number; close(): void }> {
  const script = [
    'import socket, sys, time',
    's = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(0)',
    'port = s.getsockname()[1]',
    'fillers = []',
    'for _ in range(4):',
    '    c = socket.socket(); c.setblocking(False)',
    '    try: c.connect(("127.0.0.1", port))',
    '    except BlockingIOError: pass',
    '    fillers.append(c)',
    'print(port, flush=True)',
    'time.sleep(600)',
  ].join('\n');
  const child = spawn('python3', ['-c', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`unresponsive listener exited (${code})`)));
  });
  return { port, close: () => child.kill('SIGKILL') };
}
