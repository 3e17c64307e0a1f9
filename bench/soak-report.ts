/** The soak's report (bench/soak.ts): its figures as a markdown table, printed and written to SOAK_OUT. */
import fs from 'node:fs';
import { actions, afterRestore, figures, problems, type Told } from './soak-figures';
import { restartFigures } from './soak-restarts';
import { DAYS, SEED, WEBHOOKS } from './soak-settings';

export function report(
  result: { lostWithRestore: number; xeroWrites: number },
  open: number,
  ms: number,
  pgVersion: string,
) {
  const told = (t: Told) => actions.filter((a) => a.told === t).length;
  const lines = [
    `## Soak: a business month (\`SOAK_DAYS=${DAYS} SOAK_SEED=${SEED}${WEBHOOKS ? '' : ' SOAK_WEBHOOKS=off'} npm run soak\`)`,
    '',
    `${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC · ${Math.round(ms / 1000)} s · two instances on ${pgVersion} · Node ${process.version}`,
    '',
    '| figure | count | goal |',
    '|---|---|---|',
    `| actions by people (told success / refused / in doubt) | ${actions.length} (${told('success')} / ${told('refused')} / ${told('in-doubt')}) | |`,
    `| writes Xero applied through the API | ${result.xeroWrites} | |`,
    `| races (two people on one document at once) | ${figures.races} | |`,
    `| days with Xero faults / browser resends | ${figures.faultDays} / ${figures.resends} | |`,
    `| kill -9 of an instance (with pending cash / bill creates open at the kill) | ${figures.crashes} (${restartFigures.killsWithPendingCash} / ${restartFigures.killsWithBillCreates}) | |`,
    `| list screens compared with Xero after a restart, no refresh (times / rows; ledger still busy) | ${restartFigures.comparisons} / ${restartFigures.rowsCompared}; ${restartFigures.unsettled} | |`,
    `| Xero webhooks | ${WEBHOOKS ? 'on' : 'off'} | |`,
    `| person's changes in Xero | ${figures.personChanges} | |`,
    `| webhook deliveries lost / delayed at the balancer | ${figures.webhooksDropped} / ${figures.webhooksDelayed} | |`,
    `| backup + restore, then old requests resent (by kind) | 1, ${figures.restoreResends} resent (${
      [...figures.restoreResendsByKind].map(([kind, n]) => `${kind} ${n}`).join(', ') || 'none'
    }) | |`,
    `| writes still open at the end | ${open} | 0 |`,
    `| **duplicates** | ${problems.duplicates.length} | 0 |`,
    `| **lost writes** | ${problems.lost.length} | 0 |`,
    `| **untrue answers** (screens vs Xero) | ${problems.untrueAnswers.length} | 0 |`,
    `| **untrue log lines** | ${problems.untrueLog.length} | 0 |`,
    `| log lines lost with the restore (the restored database predates them) | ${result.lostWithRestore} | expected |`,
    '',
  ];
  for (const line of afterRestore) lines.push(`- after the restore: ${line}`);
  for (const [name, list] of Object.entries(problems))
    for (const line of list.slice(0, 15)) lines.push(`- ${name}: ${line}`);
  const refusals = new Map<string, number>();
  for (const a of actions.filter((x) => x.told !== 'success'))
    refusals.set(
      `${a.kind} ${a.status} ${a.message.slice(0, 90)}`,
      (refusals.get(`${a.kind} ${a.status} ${a.message.slice(0, 90)}`) ?? 0) + 1,
    );
  lines.push('', 'What people were told when not "success" (kind, status, message: count):', '');
  for (const [text, n] of [...refusals].sort((x, y) => y[1] - x[1]).slice(0, 20))
    lines.push(`- ${text}: ${n}`);
  const text = lines.join('\n');
  console.log(`\n${text}\n`);
  if (process.env.SOAK_OUT) fs.writeFileSync(process.env.SOAK_OUT, `${text}\n`);
  const failed =
    problems.duplicates.length +
    problems.lost.length +
    problems.untrueAnswers.length +
    problems.untrueLog.length;
  process.exitCode = failed > 0 || open > 0 ? 1 : 0;
}
