// Real Qwen Code's shell half through the adapter, over toolpass/1 lines:
// run_shell_command in yolo, exec confirmations answered and declined, a
// `sed -i` turned into an edit confirmation, a background shell's notice,
// and no process outliving its session or the adapter. Skipped, naming the
// setup command, when Qwen is not installed.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import test from 'node:test';
import { fileURLToPath } from 'node:url';

import { groupAlive, groupGone, notInstalled, progressOf, rootSession, startTokenedCall } from '../../common/smoke.mjs';

const adapterDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const skip = notInstalled(adapterDir);
const slow = { skip, timeout: 180_000 };

/** A started adapter with one session in `approvalMode` on a fresh root of `files`. */
function session(t, approvalMode, files = {}) {
  return rootSession(t, adapterDir, { approvalMode }, files);
}

/** The pid Qwen reports for a background shell it started. */
function backgroundPid(llmContent) {
  const pid = Number(llmContent.match(/^pid: (\d+)$/m)?.[1]);
  assert.ok(pid > 0, `a pid in ${JSON.stringify(llmContent)}`);
  return pid;
}

test('yolo: a command runs at once and the model sees Qwen\'s labelled result', slow, async (t) => {
  const s = await session(t, 'yolo');
  const ok = await s.call('run_shell_command', { command: 'echo hello' }, 'c1');
  assert.equal(ok.status, 'success');
  assert.match(
    ok.llmContent,
    /^Command: echo hello\nDirectory: \(root\)\nOutput: hello\nError: \(none\)\nExit Code: 0\nSignal: \(none\)\nProcess Group PGID: \d+$/,
  );
  fs.mkdirSync(path.join(s.root, 'sub'));
  const failed = await s.call('run_shell_command', { command: 'pwd; exit 3', directory: path.join(s.root, 'sub') }, 'c2');
  assert.equal(failed.status, 'error');
  assert.equal(failed.error.code, 'shell_execute_error');
  assert.match(failed.llmContent, new RegExp(`^Command: pwd; exit 3\nDirectory: ${s.root}/sub\nOutput: ${s.root}/sub\n`));
  assert.match(failed.llmContent, /\nExit Code: 3\n/);
  const late = await s.call('run_shell_command', { command: 'echo out; exec sleep 30', timeout: 1000 }, 'c3');
  assert.equal(late.error?.code, 'execution_timeout', late.llmContent);
  assert.equal(late.llmContent, 'Command timed out after 1000ms before it could complete. Below is the output before it timed out:\nout');
});

test('default: an exec confirmation runs on proceed, not on cancel; proceed_always is remembered', slow, async (t) => {
  const s = await session(t, 'default');
  const asked = await s.call('run_shell_command', { command: 'touch made' }, 'c1');
  assert.equal(asked.status, 'awaiting_confirmation');
  assert.deepEqual(asked.confirmation, { type: 'exec', title: 'Confirm Shell Command', command: 'touch made', rootCommand: 'touch' });
  assert.equal(fs.existsSync(path.join(s.root, 'made')), false, 'nothing runs before the answer');
  const ran = await s.confirm('c1', 'proceed_once');
  assert.equal(ran.status, 'success', ran.llmContent);
  assert.equal(fs.existsSync(path.join(s.root, 'made')), true);

  assert.equal((await s.call('run_shell_command', { command: 'touch declined' }, 'c2')).status, 'awaiting_confirmation');
  const declined = await s.confirm('c2', 'cancel');
  assert.deepEqual(declined, { status: 'cancelled', llmContent: '[Operation Cancelled] Reason: User did not allow tool call' });
  assert.equal(fs.existsSync(path.join(s.root, 'declined')), false);
  await assert.rejects(s.confirm('c2', 'proceed_once'), /no call c2 awaits confirmation/);

  // proceed_always adds Qwen's rule (`Bash(touch *)`) to the session's permissions.
  assert.equal((await s.call('run_shell_command', { command: 'touch first' }, 'c3')).status, 'awaiting_confirmation');
  assert.equal((await s.confirm('c3', 'proceed_always')).status, 'success');
  assert.equal((await s.call('run_shell_command', { command: 'touch second' }, 'c4')).status, 'success');
  assert.equal(fs.existsSync(path.join(s.root, 'second')), true);
});

test('default: sed -i on a file read before is an edit confirmation, then the edit', slow, async (t) => {
  const s = await session(t, 'default', { 'a.txt': 'alpha\nbeta\n' });
  const file = path.join(s.root, 'a.txt');
  assert.equal((await s.call('read_file', { file_path: file }, 'r1')).status, 'success');
  const asked = await s.call('run_shell_command', { command: 'sed -i s/beta/gamma/ a.txt' }, 'c1');
  assert.equal(asked.status, 'awaiting_confirmation');
  const { diff, ...rest } = asked.confirmation;
  assert.deepEqual(rest, { type: 'edit', title: 'Confirm Sed Edit: a.txt', path: file, old: 'alpha\nbeta\n', new: 'alpha\ngamma\n' });
  assert.match(diff, /\n-beta\n\+gamma\n$/);
  await assert.rejects(s.confirm('c1', 'modify', { modifiedContent: 'x\n' }), /offers no modify/);
  const applied = await s.confirm('c1', 'proceed_once');
  assert.equal(applied.status, 'success');
  assert.equal(applied.llmContent, `sed edit applied to ${file}.`);
  assert.equal(fs.readFileSync(file, 'utf8'), 'alpha\ngamma\n');
});

test("default: Qwen's sed emulation on a CRLF file keeps every line's \\r\\n", slow, async (t) => {
  const original = 'one\r\ntwo\r\n';
  const s = await session(t, 'default', { 'a.txt': original, 'b.txt': original });
  const sed = async (name, script, callId) => {
    const file = path.join(s.root, name);
    await s.call('read_file', { file_path: file }, `read-${callId}`);
    assert.equal((await s.call('run_shell_command', { command: `sed -i '${script}' ${name}` }, callId)).status, 'awaiting_confirmation');
    return [await s.confirm(callId, 'proceed_once'), fs.readFileSync(file, 'latin1')];
  };
  // GNU sed gives "one\r!\ntwo\r!\n": `$` is after the \r, the \n stays.
  // Qwen's `$` is there too, then its write turns each \n back into \r\n.
  const [appended, appendedBytes] = await sed('a.txt', 's/$/!/', 'c1');
  assert.equal(appended.status, 'success');
  assert.equal(appendedBytes, 'one\r!\r\ntwo\r!\r\n');
  // GNU sed's `.` matches the \r ("onX\ntwX\n"); JavaScript's does not.
  const [unchanged, unchangedBytes] = await sed('b.txt', 's/.$/X/', 'c2');
  assert.equal(unchanged.llmContent, `sed edit made no changes to ${path.join(s.root, 'b.txt')}.`);
  assert.equal(unchangedBytes, original);
});

test('a background shell answers at once and its end arrives as a notice', slow, async (t) => {
  const s = await session(t, 'yolo');
  const started = await s.call('run_shell_command', { command: 'sleep 0.2; echo done', is_background: true }, 'bg1');
  assert.equal(started.status, 'success');
  assert.match(started.llmContent, /^Background shell started\.\nid: bg_[0-9a-f]{8}\npid: \d+\n/);
  const notice = await s.peer.notification((m) => m.method === 'toolpass/notice');
  const { text, ...about } = notice.params;
  assert.deepEqual(about, { sessionId: s.sessionId, kind: 'background_shell', callId: 'bg1' });
  assert.match(text, /^<task-notification>\n<task-id>bg_[0-9a-f]{8}<\/task-id>\n<kind>shell<\/kind>\n<status>completed<\/status>\n/);
  assert.match(text, /\n<summary>Shell command "sleep 0\.2; echo done" completed\.<\/summary>\n<command>sleep 0\.2; echo done<\/command>\n/);
  assert.match(text, /\n<exit-code>0<\/exit-code>\n<output-tail truncated="false">done<\/output-tail>\n/);
});

test("Qwen's task_stop ends a background shell's process group and the notice says cancelled", slow, async (t) => {
  const s = await session(t, 'yolo');
  const started = (await s.call('run_shell_command', { command: 'sleep 60', is_background: true }, 'bg1')).llmContent;
  const pid = backgroundPid(started);
  const shellId = started.match(/^id: (bg_[0-9a-f]{8})$/m)[1];
  const stopped = await s.call('task_stop', { task_id: shellId }, 'stop1');
  assert.equal(stopped.status, 'success', stopped.llmContent);
  assert.match(stopped.llmContent, new RegExp(`^Cancellation requested for background shell "${shellId}"\\.`));
  const notice = await s.peer.notification((m) => m.method === 'toolpass/notice');
  assert.equal(notice.params.callId, 'bg1');
  assert.match(notice.params.text, /\n<status>cancelled<\/status>\n<summary>Shell command "sleep 60" was cancelled\.<\/summary>\n/);
  assert.equal(await groupGone(pid), true, `process group ${pid} outlived task_stop`);
});

test('closing a session kills its background shells and drops its parked call', slow, async (t) => {
  const s = await session(t, 'default');
  assert.equal((await s.call('run_shell_command', { command: 'sleep 60', is_background: true }, 'bg1')).status, 'awaiting_confirmation');
  const pid = backgroundPid((await s.confirm('bg1', 'proceed_once')).llmContent);
  assert.equal(groupAlive(pid), true);
  assert.equal((await s.call('run_shell_command', { command: 'touch parked' }, 'c2')).status, 'awaiting_confirmation');
  await s.close();
  assert.equal(await groupGone(pid), true, `process group ${pid} outlived its session`);
  assert.equal(fs.existsSync(path.join(s.root, 'parked')), false);
});

test('the adapter leaves no shell behind when its stdin closes', slow, async (t) => {
  const s = await session(t, 'yolo');
  const pid = backgroundPid((await s.call('run_shell_command', { command: 'sleep 60', is_background: true }, 'bg1')).llmContent);
  assert.equal(groupAlive(pid), true);
  assert.equal(await s.peer.close(), 0);
  assert.equal(await groupGone(pid), true, `process group ${pid} outlived the adapter`);
});

test('a command still running when stdin closes is cancelled and its group killed', slow, async (t) => {
  const s = await session(t, 'yolo');
  const pidFile = path.join(s.root, 'pid');
  const running = s.call('run_shell_command', { command: 'echo $$ > pid; exec sleep 60' }, 'c1');
  while (!fs.existsSync(pidFile) || fs.readFileSync(pidFile, 'utf8').trim() === '') {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const pid = Number(fs.readFileSync(pidFile, 'utf8'));
  const exited = s.peer.close();
  const outcome = await running;
  assert.equal(outcome.status, 'cancelled', outcome.llmContent);
  assert.equal(await exited, 0);
  assert.equal(await groupGone(pid), true, `process group ${pid} outlived the adapter`);
});

/** Starts a run_shell_command with `progressToken` = its call id. */
const startShell = (s, command, callId) => startTokenedCall(s.peer, s.sessionId, 'run_shell_command', { command }, callId);

test("a running command's output arrives as notifications/progress under the call's token", slow, async (t) => {
  const s = await session(t, 'yolo');
  const { outcome } = startShell(s, 'echo first-line; while [ ! -e go ]; do sleep 0.05; done; echo second-line', 'p1');
  const first = await s.peer.notification(progressOf('p1', 'first-line'), 20_000);
  assert.equal(first.params.progress >= 1, true);
  fs.writeFileSync(path.join(s.root, 'go'), '');
  const done = await outcome;
  assert.equal(done.status, 'success', done.llmContent);
  assert.match(done.llmContent, /first-line\n.*second-line/s);
  // A call without a token gets no updates.
  const quiet = await s.call('run_shell_command', { command: 'echo untokened' }, 'p2');
  assert.equal(quiet.status, 'success');
  assert.equal((await s.peer.notification(progressOf('p2', ''), 1).catch(() => undefined)), undefined);
});

test('notifications/cancelled stops a running command: the call is cancelled and its group killed', slow, async (t) => {
  const s = await session(t, 'yolo');
  const { id, outcome } = startShell(s, 'echo $$ > pid; echo started; while true; do sleep 0.05; done', 'k1');
  await s.peer.notification(progressOf('k1', 'started'), 20_000);
  const pid = Number(fs.readFileSync(path.join(s.root, 'pid'), 'utf8'));
  s.peer.notify('notifications/cancelled', { requestId: id, reason: 'test' });
  const done = await outcome;
  assert.equal(done.status, 'cancelled', done.llmContent);
  assert.equal(await groupGone(pid), true, `process group ${pid} outlived its cancelled call`);
  // The session goes on.
  assert.equal((await s.call('run_shell_command', { command: 'echo after' }, 'k2')).status, 'success');
});

test('a call cancelled while it waits its turn never runs', slow, async (t) => {
  const s = await session(t, 'yolo');
  const first = startShell(s, 'echo started; while [ ! -e go ]; do sleep 0.05; done', 'q1');
  const queued = startShell(s, 'touch never-made', 'q2');
  await s.peer.notification(progressOf('q1', 'started'), 20_000);
  s.peer.notify('notifications/cancelled', { requestId: queued.id });
  fs.writeFileSync(path.join(s.root, 'go'), '');
  assert.equal((await first.outcome).status, 'success');
  const skipped = await queued.outcome;
  assert.equal(skipped.status, 'cancelled', skipped.llmContent);
  assert.equal(fs.existsSync(path.join(s.root, 'never-made')), false);
});

test('shell_pty is advertised exactly when the commands run on a pty', slow, async (t) => {
  const s = await session(t, 'yolo');
  const init = await s.peer.request('initialize', { protocolVersion: 'toolpass/1', capabilities: {}, clientInfo: { name: 'test', version: '1' } });
  const advertised = init.capabilities.toolpass.features.includes('shell_pty');
  const tty = await s.call('run_shell_command', { command: 'tty' }, 't1');
  assert.equal(/Output: \/dev\/pts\/\d+/.test(tty.llmContent), advertised, tty.llmContent);
});
