// The environments every latency figure is measured in. This machine sets NODE_EXTRA_CA_CERTS,
// which node reads and parses at every start (~40 ms of CPU): both sides of a ratio pay it, so it
// makes every ratio to `node -e 0` look better than what a user without it sees. The targets are
// for the run without it; the run with it (the inherited environment) is reported beside.
export function latencyEnvs(env = process.env) {
  const bare = { ...env };
  delete bare.NODE_EXTRA_CA_CERTS;
  const out = [{ label: 'without NODE_EXTRA_CA_CERTS', short: 'without CA file', env: bare, targets: true }];
  if (env.NODE_EXTRA_CA_CERTS)
    out.push({
      label: 'with NODE_EXTRA_CA_CERTS (as this machine sets it)',
      short: 'with CA file',
      env,
      targets: false,
    });
  return out;
}
