#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
# contrib/completion: the bash completion, sourced into bash, completes
# options, option arguments (-o keywords and values, -c ciphers, -X, -J
# hosts), local paths (quoted), hosts from ssh_config and known_hosts, and
# remote paths over a live ControlMaster of a private sshd on 127.0.0.1 (and
# nothing, without connecting, when no master is live).  Where zsh is
# installed, the zsh completion is driven through zle on a pseudo-terminal
# for a few of the same cases.
. "$(dirname "$0")/../lib/compare.sh"
fscp_test_init
comp=$srcdir/contrib/completion/bash/fscp

# replies LINE: what completing at the end of LINE offers, one per line,
# in a fresh bash with the completion sourced (as a user's shell has it),
# bash's default word breaks, and the completion variables bash would set.
cat >"$FSCP_WORK/driver.sh" <<'EOD'
. "$1" || exit 1
COMP_WORDBREAKS=$' \t\n"\'><=;|&(:'
COMP_LINE=$2 COMP_POINT=${#2}
read -ra COMP_WORDS <<<"$2"
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
_fscp fscp
printf '%s\n' "${COMPREPLY[@]}"
EOD
replies() {
	HOME=$FSCP_HOME bash --norc --noprofile "$FSCP_WORK/driver.sh" "$comp" "$1"
}

# offers LINE REPLY...: each REPLY (exact, trailing space included) is offered.
offers() {
	local line=$1 got r
	shift
	got=$(cd "$FSCP_WORK/L" && replies "$line")
	for r in "$@"; do
		if ! grep -Fxq -- "$r" <<<"$got"; then
			bad "'$line<Tab>' does not offer '$r'; it offers:"
			sed 's/^/    /' <<<"$got" | head -20
			return
		fi
	done
	ok "'$line<Tab>' offers $(printf "'%s' " "$@")"
}

# offers_none LINE PATTERN: no reply matches the grep pattern.
offers_none() {
	local line=$1 pat=$2 got
	got=$(cd "$FSCP_WORK/L" && replies "$line")
	if grep -Eq -- "$pat" <<<"$got"; then
		bad "'$line<Tab>' offers what matches /$pat/:"
		sed 's/^/    /' <<<"$got" | head -20
	else
		ok "'$line<Tab>' offers nothing like /$pat/"
	fi
}

# A user's home with an ssh config and a known_hosts file.
FSCP_HOME=$FSCP_WORK/home
mkdir -p "$FSCP_HOME/.ssh"
printf 'Host alpha beta-host\n\tUser u\nHost *.wild\n\tUser w\n' >"$FSCP_HOME/.ssh/config"
printf 'known1,10.9.8.7 ssh-ed25519 AAAA\n[known2]:2222 ssh-ed25519 AAAA\n|1|aGFzaA==|aGFzaA== ssh-ed25519 AAAA\n' \
	>"$FSCP_HOME/.ssh/known_hosts"
# Local files, with names that need quoting.
mkdir -p "$FSCP_WORK/L/sub dir" "$FSCP_WORK/L/docs"
touch "$FSCP_WORK/L/file one" "$FSCP_WORK/L/docs/a.txt" "$FSCP_WORK/L/-dashfile"

offers "fscp -" "-r " "-p " "-3 " "-P " "-o " "-X " "-J " "-- "
offers_none "fscp -" '^-V'
offers "fscp --v" "--version "
offers_none "fscp -r --" '^--version'
offers "fscp -o StrictH" "StrictHostKeyChecking="
offers "fscp -o StrictHostKeyChecking=acc" "accept-new "
offers "fscp -oBatchM" "-oBatchMode="
first_cipher=$(ssh -Q cipher | head -n 1)
offers "fscp -c " "$first_cipher "
offers "fscp -o Ciphers=" "$first_cipher "
offers "fscp -X " "buffer=" "nrequests="
offers "fscp -J al" "alpha "
offers "fscp fi" 'file\ one '
offers "fscp su" 'sub\ dir/'
offers "fscp docs/" "docs/a.txt "
offers "fscp -r -P 22 docs/" "docs/a.txt "
offers "fscp " "alpha:" "beta-host:" "known1:" "10.9.8.7:" "known2:" 'file\ one ' 'sub\ dir/'
offers_none "fscp " 'wild|hash|^\|'
offers "fscp u@be" "u@beta-host:"
# Options end at the first operand, as in scp.
offers_none "fscp docs/a.txt -" '^-r'
offers "fscp docs/a.txt -" "-dashfile "
offers_none "fscp -- -" '^-r'
offers "fscp -F $SSH_CONFIG fscp-t" "fscp-test:"

# Remote paths: nothing without a live master (and no connection: sshd
# would accept one, so a listing here would mean it connected)...
mkdir -p "$SSHD_HOME/srcdir/inner" && touch "$SSHD_HOME/srcdir/remote file"
offers_none "fscp -F $SSH_CONFIG fscp-test:$SSHD_HOME/src" 'srcdir'
# ...and the listing over a live one.
# cm-test: the fscp-test entry (sshd.sh writes it last) with a ControlPath.
entry=$(sed -n '/^Host fscp-test\( \|$\)/,$p' "$SSH_CONFIG")
{
	echo
	printf '%s\n' "$entry" | sed '1s/.*/Host cm-test/'
	printf '\tControlMaster no\n\tControlPath %s\n' "$FSCP_WORK/cm-%C"
} >>"$SSH_CONFIG"
ssh -F "$SSH_CONFIG" -o ControlMaster=yes -fN cm-test </dev/null ||
	fscp_hard_error "cannot start the ControlMaster (ssh -o ControlMaster=yes -fN cm-test)"
offers "fscp -F $SSH_CONFIG cm-test:$SSHD_HOME/src" "$SSHD_HOME/srcdir/"
offers "fscp -F $SSH_CONFIG cm-test:$SSHD_HOME/srcdir/" "$SSHD_HOME/srcdir/inner/" "$SSHD_HOME/srcdir/remote\\ file "
offers "fscp -r -F $SSH_CONFIG a cm-test:$SSHD_HOME/srcdir/in" "$SSHD_HOME/srcdir/inner/"
ssh -F "$SSH_CONFIG" -O exit cm-test 2>/dev/null

# zsh: the same completion function driven through a real zle on a
# pseudo-terminal (zsh/zpty), reading what the Tab inserted or listed.
# Nothing here sleeps a fixed time: beside a parallel make check, compinit
# can take seconds.  The driver types only once zle has drawn the prompt
# (a marker the echoed command line does not contain), then reads until
# every expected text is on the screen or its deadline passes, and prints
# the screen either way for zsh_offers to judge.
cat >"$FSCP_WORK/zdriver.zsh" <<'EOD'
zmodload zsh/zpty zsh/datetime zsh/zselect || exit 2
setopt extendedglob
fpath_dir=$1 line=$2
shift 2
out='' screen=''
# until SECONDS TEXT...: read until the screen shows every TEXT (true) or
# SECONDS pass (false).
until_shown() {
	local limit=$((EPOCHREALTIME + $1)) chunk t missing
	shift
	while :; do
		while zpty -r -t z chunk 2>/dev/null; do out+=$chunk; done
		screen=${out//$'\e'\[[0-9\;?]#[A-Za-z]/}
		screen=${screen//$'\r'/$'\n'}
		missing=0
		for t in "$@"; do [[ $screen == *"$t"* ]] || { missing=1; break; }; done
		((missing)) || return 0
		((EPOCHREALTIME < limit)) || return 1
		zselect -t 5
	done
}
zpty -b z zsh -f -i
zpty -w z "stty columns 500; PS1='fscp''-ready> '; fpath=($fpath_dir \$fpath); autoload -Uz compinit; compinit -u -D; setopt nobeep"
if ! until_shown 90 'fscp-ready> '; then
	print -r -- "no prompt from zsh within 90 s; the terminal shows:"
	print -r -- "$screen"
	zpty -d z
	exit 1
fi
out=''
zpty -n -w z "$line"$'\t'
until_shown 60 "$@"
zpty -d z
print -r -- "$screen"
EOD
# zsh_offers LINE TEXT...: after LINE<Tab>, zsh shows every TEXT.
zsh_offers() {
	local line=$1 got t
	shift
	got=$(cd "$FSCP_WORK/L" && HOME=$FSCP_HOME timeout 180 zsh -f "$FSCP_WORK/zdriver.zsh" \
		"$srcdir/contrib/completion/zsh" "$line" "$@" 2>&1)
	for t in "$@"; do
		if ! grep -Fq -- "$t" <<<"$got"; then
			bad "zsh: '$line<Tab>' does not show '$t'; the terminal shows:"
			grep -v '^ *$' <<<"$got" | tail -n 12 | sed 's/^/    /'
			return
		fi
	done
	ok "zsh: '$line<Tab>' shows $(printf "'%s' " "$@")"
}
if command -v zsh >/dev/null && zsh -fc 'zmodload zsh/zpty && zpty t true && zpty -d t' 2>/dev/null; then
	if zsh -n "$srcdir/contrib/completion/zsh/_fscp"; then
		ok "zsh -n _fscp"
	else
		bad "zsh -n _fscp"
	fi
	zsh_offers "fscp -" "copy directories recursively" "SFTP tuning" "-- port"
	zsh_offers "fscp -o Strict" "fscp -o StrictHostKeyChecking="
	zsh_offers "fscp --v" "fscp --version"
	zsh_offers "fscp -c aes1" "aes128-ctr" "aes192-ctr"
	zsh_offers "fscp be" "fscp beta-host:"
	zsh_offers "fscp fi" 'fscp file\ one'
	# options end at the first operand: a file name, not -r
	zsh_offers "fscp docs/a.txt -" "fscp docs/a.txt -dashfile"
	ssh -F "$SSH_CONFIG" -o ControlMaster=yes -fN cm-test </dev/null ||
		fscp_hard_error "cannot start the ControlMaster again"
	zsh_offers "fscp -F $SSH_CONFIG cm-test:$SSHD_HOME/srcdir/in" "cm-test:$SSHD_HOME/srcdir/inner/"
	ssh -F "$SSH_CONFIG" -O exit cm-test 2>/dev/null
else
	echo "note: no zsh with a working zsh/zpty here; the zsh completion is not checked"
fi
checks_done
