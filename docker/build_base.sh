#!/usr/bin/env bash
# Make the base image docker.io/library/debian:trixie-slim locally, for machines that reach a
# Debian mirror but no container registry:
#   debootstrap --variant=minbase trixie ROOT MIRROR, slimmed like the official -slim image
#   (no docs/man pages/locales, no apt lists), then `podman import`.
#
#   bash docker/build_base.sh [MIRROR]
#
# MIRROR defaults to $FXROD_DEBIAN_MIRROR, else the first Debian archive URI in this machine's
# apt sources, else http://deb.debian.org/debian. A no-op when the image already exists
# (FXROD_REBUILD_BASE=1 forces a rebuild). Needs root, debootstrap and podman.
set -euo pipefail
image="${FXROD_BASE_IMAGE:-docker.io/library/debian:trixie-slim}"
suite="${FXROD_DEBIAN_SUITE:-trixie}"

if [ -z "${FXROD_REBUILD_BASE:-}" ] && podman image exists "$image"; then
  echo "build_base: $image exists (FXROD_REBUILD_BASE=1 to rebuild)"; exit 0
fi

find_mirror() {  # first URI ending in /debian in apt's sources (deb822 *.sources, then *.list)
  local f uri
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    uri=$(awk 'tolower($1)=="uris:" {for (i=2;i<=NF;i++) print $i}' "$f" | grep -E '/debian/?$' | head -n1 || true)
    [ -n "$uri" ] && { echo "${uri%/}"; return; }
  done
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    uri=$(awk '$1=="deb" {for (i=2;i<=NF;i++) if ($i ~ /^(https?|file):/) {print $i; break}}' "$f" \
          | grep -E '/debian/?$' | head -n1 || true)
    [ -n "$uri" ] && { echo "${uri%/}"; return; }
  done
  echo "http://deb.debian.org/debian"
}
mirror="${1:-${FXROD_DEBIAN_MIRROR:-$(find_mirror)}}"

work="$(mktemp -d "${TMPDIR:-/var/tmp}/fxrod-base.XXXXXX")"
trap 'rm -rf "$work"' EXIT
root="$work/root"
t0=$(date +%s)
echo "build_base: debootstrap --variant=minbase $suite $root $mirror"
if ! debootstrap --variant=minbase "$suite" "$root" "$mirror" >"$work/debootstrap.log" 2>&1; then
  tail -n 30 "$work/debootstrap.log" >&2
  [ -f "$root/debootstrap/debootstrap.log" ] && tail -n 30 "$root/debootstrap/debootstrap.log" >&2
  echo "build_base: debootstrap failed" >&2; exit 1
fi

# Slim it the way the official debian:*-slim images are: dpkg skips docs, man pages and
# locales from now on, and apt keeps no package lists or downloaded .debs in layers.
cat >"$root/etc/dpkg/dpkg.cfg.d/docker" <<'EOF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/groff/*
path-exclude /usr/share/info/*
path-exclude /usr/share/lintian/*
path-exclude /usr/share/linda/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
EOF
cat >"$root/etc/apt/apt.conf.d/docker-clean" <<'EOF'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
EOF
cat >"$root/etc/apt/apt.conf.d/docker-no-recommends" <<'EOF'
APT::Install-Recommends "false";
APT::Install-Suggests "false";
EOF
find "$root/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete
find "$root/usr/share/doc" -mindepth 1 -type d -empty -delete
rm -rf "$root"/usr/share/man/* "$root"/usr/share/info/* "$root"/usr/share/groff/* \
       "$root"/usr/share/lintian/* "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/* \
       "$root"/var/log/* "$root"/debootstrap
find "$root/usr/share/locale" -mindepth 1 -maxdepth 1 -not -name locale.alias -exec rm -rf {} +
: >"$root/etc/hostname"
rm -f "$root/etc/resolv.conf"

tar --numeric-owner -C "$root" -c . | podman import \
  --change 'CMD ["bash"]' --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  -q - "$image" >/dev/null
echo "build_base: $image from $mirror in $(( $(date +%s) - t0 )) s" \
     "($(podman image inspect --format '{{.Size}}' "$image" | awk '{printf "%.0f MB", $1/1e6}'))"
