// Preloaded with `node --require` into the gateway, whose code the harness does not own: if the
// harness dies without stopping it (SIGKILL), the process is re-parented, and then it stops itself
// (SIGTERM, its own graceful stop; exit after 10 s more). The bench's own servers watch stdin
// instead (announce.ts). The check is one getppid() a second and adds nothing per request.
const parent = process.ppid;
let orphanedFor = 0;
setInterval(() => {
  if (process.ppid === parent) return;
  orphanedFor += 1;
  if (orphanedFor === 1) process.kill(process.pid, 'SIGTERM');
  else if (orphanedFor > 10) process.exit(1);
}, 1000).unref();
