#!/bin/bash
# Builds the packages and checks them on this machine (as root; CI runs it):
#   .deb: install with dpkg, run the commands, find the man page, load the bash, zsh and
#         fish completions, run a job with the static build, keep an edited conffile over a
#         reinstall, remove (files gone, conffile kept) and purge (conffile gone). When
#         Slurm's own slurm-client is installed (the reference Slurm some tests record
#         from), dpkg must refuse the package (Conflicts), and the checks run on an install
#         into a private dpkg root (dpkg --root, like a chroot) instead, so that Slurm stays;
#   .rpm: file list, scripts, conflicts and config files from rpm -qlp / -qp, then install
#         it into a private root (rpm --root; its scriptlets really run), check the links,
#         and erase it.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n== %s\n' "$*"; }
fail() { echo "package-check: FAILED: $*" >&2; exit 1; }
start=$(date +%s)

if [ "$(id -u)" != 0 ]; then
    fail "must run as root (dpkg -i)"
fi
for cmd in dpkg rpm man bash; do
    command -v "$cmd" >/dev/null || fail "$cmd is not installed"
done
if dpkg-query -W -f='${Status}' bai-slurm 2>/dev/null | grep -q "installed"; then
    dpkg --purge bai-slurm >/dev/null
fi

step "build"
./scripts/package.sh
deb=$(ls target/packages/bai-slurm_*.deb)
rpmf=$(ls target/packages/bai-slurm-*.rpm)

step "deb: control"
dpkg-deb -f "$deb" Package Version Depends Conflicts
files=$(dpkg-deb -c "$deb" | awk '{print $6}' | sed 's#^\./#/#' | grep -v '/$')
echo "$(echo "$files" | wc -l) files"
# An upgrade restarts the system mode's service (where systemd runs), so that commands and
# service are one version.
dpkg-deb -I "$deb" postinst | grep -q "try-restart bai-slurm.service" || fail "deb postinst does not restart the service"

# R: the root the package is installed under ("" = this machine).
R=""
DPKG=(dpkg)
if dpkg-query -W -f='${Status}' slurm-client 2>/dev/null | grep -q "ok installed"; then
    step "deb: Slurm's slurm-client is installed: dpkg must refuse bai-slurm"
    refusal=$(dpkg --dry-run -i "$deb" 2>&1 || true)
    echo "$refusal"
    if [[ $refusal == *"conflicting packages - not installing bai-slurm"* ]]; then
        echo "refused: Conflicts holds"
    else
        fail "dpkg would install bai-slurm beside slurm-client"
    fi
    R=$(pwd)/target/dpkg-root
    rm -rf "$R"
    mkdir -p "$R/var/lib/dpkg/info" "$R/var/lib/dpkg/updates"
    touch "$R/var/lib/dpkg/status" "$R/var/lib/dpkg/available"
    # The private root has no libc6 package; the binary uses this machine's libc. It has
    # no shell either: the maintainer scripts run outside it (DPKG_ROOT set, which the
    # postinst reads as "not this machine's service").
    DPKG=(dpkg --root="$R" --force-depends --force-not-root --force-script-chrootless)
    echo "installing into a private dpkg root: $R"
fi
export PATH="$R/usr/bin:$PATH" MANPATH="$R/usr/share/man:" XDG_DATA_DIRS="$R/usr/share:/usr/share"

step "deb: install"
"${DPKG[@]}" -i "$deb"
"${DPKG[@]}" -s bai-slurm | grep -E "^(Status|Conffiles)" -A1

step "deb: commands"
"$R/usr/bin/sbatch" --version
"$R/usr/bin/bai-slurm" --version
for c in sbatch squeue scancel srun salloc sinfo sacct scontrol; do
    [ "$(readlink "$R/usr/bin/$c")" = bai-slurm ] || fail "/usr/bin/$c is not a link to bai-slurm"
done
echo "command links: ok"

step "deb: man"
man -w sbatch
[ "$(man -w sbatch)" = "$R/usr/share/man/man1/sbatch.1.gz" ] || fail "man -w sbatch"
man -w bai-slurm
MANWIDTH=80 man sbatch 2>&1 | grep -m1 -- "--array" || fail "man sbatch has no --array"

step "deb: systemd unit (system mode's service)"
unit=$R/usr/lib/systemd/system/bai-slurm.service
[ -f "$unit" ] || fail "no $unit"
grep -qx "ExecStart=/usr/bin/bai-slurm service" "$unit" || fail "$unit does not start bai-slurm service"
command -v systemd-analyze >/dev/null || fail "systemd-analyze is not installed (the README's test command installs systemd)"
if [ -z "$R" ]; then
    systemd-analyze verify "$unit"
else
    # Installed into a private root: the unit names /usr/bin/bai-slurm, which is there.
    sed "s#/usr/bin/bai-slurm#$R/usr/bin/bai-slurm#" "$unit" > "$R/bai-slurm.service"
    systemd-analyze verify "$R/bai-slurm.service"
    rm "$R/bai-slurm.service"
fi
echo "unit: verified"
step "deb: bash completion"
# An interactive bash that loads completions the way a login shell does: through
# bash-completion's loader when it is installed, else by sourcing the file.
out=$(HOME=$(mktemp -d) R=$R bash --norc -i -c '
    if [ -r /usr/share/bash-completion/bash_completion ]; then
        . /usr/share/bash-completion/bash_completion
        _completion_loader sbatch 2>/dev/null || __load_completion sbatch
    else
        . "$R/usr/share/bash-completion/completions/sbatch"
    fi
    complete -p sbatch' 2>/dev/null)
echo "$out"
[[ $out == *"_bai_slurm_dyn_sbatch"*sbatch ]] || fail "complete -p sbatch"

step "deb: dynamic completion with a held job (installed binary)"
state=$(mktemp -d)
id=$(BAI_SLURM_STATE_DIR=$state "$R/usr/bin/sbatch" --parsable -H --wrap 'sleep 60')
got=$(BAI_SLURM_STATE_DIR=$state R=$R bash --norc -c '
    . "$R/usr/share/bash-completion/completions/scancel"
    COMP_WORDS=(scancel ""); COMP_CWORD=1
    _bai_slurm_dyn_scancel scancel "" scancel
    echo "${COMPREPLY[*]}"')
echo "scancel <TAB>: $got"
[ "$got" = "$id" ] || fail "scancel completion offered '$got', not job $id"
BAI_SLURM_STATE_DIR=$state "$R/usr/bin/scancel" "$id"

step "deb: zsh and fish completion"
command -v zsh >/dev/null || fail "zsh is not installed (the README's test command installs it)"
command -v fish >/dev/null || fail "fish is not installed (the README's test command installs it)"
R=$R zsh -fc 'fpath=($R/usr/share/zsh/vendor-completions $fpath); autoload -U compinit; compinit -u -d /tmp/zcd.$$; print "zsh: sbatch -> $_comps[sbatch], scancel -> $_comps[scancel]"'
rm -f /tmp/zcd.$$
fish_out=$(R=$R fish -c 'set -p fish_complete_path $R/usr/share/fish/vendor_completions.d; complete -C "sbatch --parsa"')
grep -q -- "--parsable" <<<"$fish_out" || fail "fish does not complete sbatch --parsa"
echo "fish: ${fish_out%%$'\n'*}"

step "deb: static build for containers"
static=$R/usr/lib/bai-slurm/bai-slurm-static
file "$static" 2>/dev/null || true
[[ $(ldd "$static" 2>&1 || true) =~ "not a dynamic executable"|"statically linked" ]] || fail "$static is not static"
"$static" sbatch --version
# A real job through the static build's own runner and launcher.
state=$(mktemp -d)
out=$(cd "$state" && BAI_SLURM_STATE_DIR=$state/state "$static" sbatch --wait --parsable \
    -o "$state/out.txt" --wrap 'echo static-ok')
grep -qx static-ok "$state/out.txt" || fail "job of the static build: $(cat "$state/out.txt" 2>&1)"
echo "job $out ran: $(cat "$state/out.txt")"

step "deb: conffile kept over a reinstall"
echo 'cluster_name = "edited"' >> "$R/etc/bai-slurm/config.toml"
"${DPKG[@]}" -i "$deb" >/dev/null
grep -q '^cluster_name = "edited"' "$R/etc/bai-slurm/config.toml" || fail "reinstall lost the edit"
echo "edited conffile kept"

step "deb: remove"
"${DPKG[@]}" -r bai-slurm
left=""
for f in $files; do
    [ "$f" = /etc/bai-slurm/config.toml ] && continue
    if [ -e "$R$f" ] || [ -L "$R$f" ]; then left="$left $f"; fi
done
[ -z "$left" ] || fail "left after dpkg -r:$left"
[ -f "$R/etc/bai-slurm/config.toml" ] || fail "dpkg -r removed the conffile"
"${DPKG[@]}" -s bai-slurm | grep "^Status" | sed 's/^/after remove: /' 
step "deb: purge"
"${DPKG[@]}" --purge bai-slurm
[ ! -e "$R/etc/bai-slurm/config.toml" ] || fail "purge left the conffile"
[ ! -e "$R/etc/bai-slurm" ] || fail "purge left /etc/bai-slurm"
"${DPKG[@]}" -s bai-slurm >/dev/null 2>&1 && fail "still known to dpkg after purge"
echo "purged: no files left"

step "rpm: metadata"
rpm -qip "$rpmf" 2>/dev/null | grep -E "^(Name|Version|Release|Architecture|License|Summary)"
echo "-- conflicts:"; rpm -qp --conflicts "$rpmf"
echo "-- config files:"; rpm -qp --configfiles "$rpmf"
echo "-- files:"; rpm -qlp "$rpmf"
echo "-- scripts:"; rpm -qp --scripts "$rpmf"
# Each listing is read whole before it is searched: `rpm ... | grep -q` under pipefail fails
# whenever grep stops at the first match while rpm is still writing (SIGPIPE).
files=$(rpm -qlp "$rpmf"); configs=$(rpm -qp --configfiles "$rpmf")
conflicts=$(rpm -qp --conflicts "$rpmf"); scripts=$(rpm -qp --scripts "$rpmf")
for f in /usr/bin/bai-slurm /usr/share/man/man1/sbatch.1 \
    /usr/share/bash-completion/completions/sbatch /usr/lib/bai-slurm/bai-slurm-static \
    /usr/lib/systemd/system/bai-slurm.service; do
    grep -qx "$f" <<<"$files" || fail "rpm lacks $f"
done
grep -qx /etc/bai-slurm/config.toml <<<"$configs" || fail "rpm config file"
grep -qx slurm <<<"$conflicts" || fail "rpm does not conflict with slurm"
grep -q "ln -sfn bai-slurm" <<<"$scripts" || fail "rpm post-install script"
grep -q "try-restart bai-slurm.service" <<<"$scripts" || fail "rpm post-install does not restart the service"

step "rpm: install and erase in a private root (its scriptlets run there, under busybox)"
# rpm --root keeps this machine's files (and any Slurm installed here) out of reach; the
# root gets a static busybox as /bin/sh, ln, readlink and rm for the scriptlets.
busybox=$(command -v busybox) || fail "busybox is not installed (Debian: busybox-static)"
[[ $(ldd "$busybox" 2>&1 || true) =~ "not a dynamic executable"|"statically linked" ]] || fail "$busybox is not static"
RR=$(pwd)/target/rpm-root
rm -rf "$RR"
mkdir -p "$RR/bin" "$RR/usr/bin"
cp "$busybox" "$RR/bin/busybox"
for t in sh ln readlink rm; do ln -s busybox "$RR/bin/$t"; done
rpm --root "$RR" --initdb
rpm --root "$RR" -i --nodeps "$rpmf"
rpm --root "$RR" -q bai-slurm
"$RR/usr/bin/sbatch" --version
for c in sbatch squeue scancel srun salloc sinfo sacct scontrol; do
    [ "$(readlink "$RR/usr/bin/$c")" = bai-slurm ] || fail "rpm: /usr/bin/$c is not a link"
done
echo "rpm: command links made by %post"
[ -f "$RR/etc/bai-slurm/config.toml" ] || fail "rpm: no config file"
rpm --root "$RR" -e bai-slurm
for f in /usr/bin/bai-slurm /usr/bin/sbatch /usr/share/man/man1/sbatch.1 \
    /usr/share/bash-completion/completions/sbatch /usr/lib/bai-slurm/bai-slurm-static; do
    if [ -e "$RR$f" ] || [ -L "$RR$f" ]; then fail "rpm -e left $f"; fi
done
echo "rpm: erased; links removed by %postun"

echo
echo "package-check: all checks passed in $(( $(date +%s) - start )) s"
