# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
# fscp-alias.sh: make interactive shells run fscp(1) when scp is typed.
#
# Which shells read it, on Debian 12:
#   /etc/profile.d/fscp-alias.sh   login shells of sh and bash (a console or
#                                  ssh login, bash -l, su -), through
#                                  /etc/profile.  Not the non-login bash of
#                                  a terminal window, and no zsh (zsh does
#                                  not read /etc/profile).
#   every user's interactive bash and zsh: also this line in
#   /etc/bash.bashrc and in /etc/zsh/zshrc:
#       [ -r /etc/profile.d/fscp-alias.sh ] && . /etc/profile.d/fscp-alias.sh
#   one user's: the same line in ~/.bashrc or ~/.zshrc (with the file
#   wherever that user keeps it).
#
# fscp takes scp's command line unchanged, so the alias only changes speed.
# It is set only in interactive shells, where a person types scp: scripts
# keep running /usr/bin/scp, exactly as before.  It is set only when fscp is
# installed, so a removed fscp leaves a working scp behind (in shells started
# after the removal).
#
# To undo it:
#   for one command:       \scp ...   or   command scp ...
#   for this shell:        unalias scp
#   for one user:          add "unalias scp 2>/dev/null" at the end of
#                          ~/.bashrc (or ~/.zshrc)
#   for everyone:          rm /etc/profile.d/fscp-alias.sh, and the lines
#                          that source it in /etc/bash.bashrc, /etc/zsh/zshrc
case $- in
*i*)
	if command -v fscp >/dev/null 2>&1; then
		alias scp=fscp
	fi
	;;
esac
