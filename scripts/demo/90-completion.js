// Shell completion and the platform change history.
export default async function (d) {
  d.section('Shell completion and the change history');
  d.note('source <(xctl completion bash)   # generated from the command tree');
  const r = await d.xctl(['completion', 'bash'], { show: false });
  d.note(`the bash script completes ${r.stdout.split('\n').filter((l) => l.startsWith('  [')).length / 2} command paths`);
  await d.xctl(['changelog', '--since', '2026-03-01']);
}
