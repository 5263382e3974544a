import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

// Which of some processes owns the TCP socket bound to a local loopback port (Linux /proc): a test server
// tells from a request's remote port which replica made the call.

/** Inodes of the sockets whose local port is `port`, from /proc/net/tcp and tcp6. */
function socketInodes(port: number): Set<string> {
  const hex = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols[1]?.endsWith(hex) && cols[9]) inodes.add(cols[9]);
    }
  }
  return inodes;
}

/** The pid among `pids` holding a socket with local port `port`; undefined when none does. */
export function pidOwningLocalPort(port: number, pids: number[]): number | undefined {
  const inodes = socketInodes(port);
  for (const pid of pids) {
    let fds: string[] = [];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (m && inodes.has(m[1]!)) return pid;
      } catch {
        // closed meanwhile
      }
    }
  }
  return undefined;
}
