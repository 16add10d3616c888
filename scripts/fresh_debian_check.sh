#!/usr/bin/env bash
# Proves the README's two commands on a fresh Debian 12 system: a minimal bookworm root made by
# debootstrap (nothing but the `minbase` variant), into which a clean clone of this repository's
# HEAD and the test data are copied; inside it (chroot, as root, no leftovers of this machine)
# runs `bash scripts/quickstart.sh`, then the README's ctest command. Needs root, debootstrap and
# the network access apt has. The mirror is the one this machine's apt uses.
#
#   scripts/fresh_debian_check.sh ROOT_DIR [ctest args...]
#
# ROOT_DIR is created (or reused if it already holds a debootstrapped system: only the clone is
# replaced). Extra arguments go to ctest (e.g. `-E conformance` for a quicker run). The log of each
# step is printed; the exit status is that of the first failing step.
set -euo pipefail

root=${1:?usage: fresh_debian_check.sh ROOT_DIR [ctest args...]}
shift
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
shared=$repo/../shared
[[ $(id -u) -eq 0 ]] || { echo "fresh_debian_check.sh: run it as root (debootstrap, chroot)" >&2; exit 1; }
command -v debootstrap >/dev/null ||
  { echo "fresh_debian_check.sh: needs debootstrap (apt-get install debootstrap)" >&2; exit 1; }

mirror=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources \
  2>/dev/null | grep -oE '^(URIs:|deb) +[a-z]+://[^ ]+/debian/?( |$)' | awk '{print $2}' | head -1 ||
  true)
[[ -n $mirror ]] || { echo "no Debian mirror in this machine's apt sources" >&2; exit 1; }

if [[ ! -x $root/usr/bin/apt-get ]]; then
  debootstrap --variant=minbase bookworm "$root" "$mirror"
fi
echo "deb $mirror bookworm main" >"$root/etc/apt/sources.list"
cp /etc/resolv.conf "$root/etc/resolv.conf"

mountpoints=(proc sys dev dev/pts)
cleanup() {
  for ((i = ${#mountpoints[@]} - 1; i >= 0; i--)); do
    umount "$root/${mountpoints[i]}" 2>/dev/null || true
  done
}
trap cleanup EXIT
mount -t proc proc "$root/proc"
mount -t sysfs sys "$root/sys"
mount --bind /dev "$root/dev"
mount --bind /dev/pts "$root/dev/pts"

# A clean clone of HEAD (no build trees, no untracked files) with the test data beside it.
rm -rf "$root/src"
mkdir -p "$root/src"
git clone -q --no-hardlinks "$repo" "$root/src/main"
if [[ -d $shared ]]; then
  cp -a "$shared" "$root/src/shared"
fi

# The chroot has no git: install only what the README assumes a newcomer has (nothing), then run
# the two commands exactly as written.
chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin TERM=dumb \
  bash -c 'cd /src/main && bash scripts/quickstart.sh'
chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin TERM=dumb \
  bash -c "cd /src/main && ctest --test-dir build --output-on-failure -j\"\$(nproc)\" $*"
