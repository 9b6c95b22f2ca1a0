# fscp-alias.sh: make interactive shells run fscp(1) when scp is typed.
#
# Install as /etc/profile.d/fscp-alias.sh (login shells of sh, bash and zsh
# read it through /etc/profile), or source it from ~/.bashrc or ~/.zshrc.
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
#   for everyone:          rm /etc/profile.d/fscp-alias.sh
case $- in
*i*)
	if command -v fscp >/dev/null 2>&1; then
		alias scp=fscp
	fi
	;;
esac
