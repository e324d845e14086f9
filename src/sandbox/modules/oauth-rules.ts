/** The sandbox app accepts loopback callbacks on any port (DESIGN.md "Sandbox"). */
export function isLoopbackCallback(url: string): boolean {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' && (u.hostname === '127.0.0.1' || u.hostname === 'localhost');
  } catch {
    return false;
  }
}
