// Shell completion and the platform change history.
export default async function (d) {
  d.section('Shell completion and the change history');
  d.note('source <(xctl completion bash)   # generated from the command tree');
  const r = await d.xctl(['completion', 'bash'], { show: false });
  const paths = r.stdout.slice(r.stdout.indexOf('_xctl_subs=('), r.stdout.indexOf('\n)\n')).split('\n').length - 1;
  d.note(
    `the bash script completes ${paths} command paths, and values: -o, --profile (names read at Tab time), enums, event types`,
  );
  await d.xctl(['changelog', '--since', '2026-03-01']);
}
