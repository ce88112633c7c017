#!/usr/bin/env bash
# Builds the tiny `nomad-rs-busybox:latest` image the docker driver tests run, from Debian's
# busybox-static package: no image registry is reachable, so the image is made locally.
# Skips the work when the image is already present.
set -euo pipefail

IMAGE="${1:-nomad-rs-busybox:latest}"
if docker image inspect "$IMAGE" >/dev/null 2>&1; then
  exit 0
fi
BUSYBOX="$(command -v busybox || true)"
if [ -z "$BUSYBOX" ] || ! file -L "$BUSYBOX" 2>/dev/null | grep -q static; then
  BUSYBOX=/bin/busybox
fi
if [ ! -x "$BUSYBOX" ]; then
  echo "busybox.sh: no busybox binary (apt-get install busybox-static)" >&2
  exit 1
fi

root="$(mktemp -d)"
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/bin" "$root/etc" "$root/tmp" "$root/proc" "$root/sys" "$root/dev"
chmod 1777 "$root/tmp"
cp "$BUSYBOX" "$root/bin/busybox"
# One symlink per applet so `sh`, `echo`, `sleep` ... resolve inside the container.
for applet in $("$root/bin/busybox" --list); do
  [ "$applet" = busybox ] || ln -sf busybox "$root/bin/$applet"
done
echo 'root:x:0:0:root:/root:/bin/sh' > "$root/etc/passwd"
echo 'nobody:x:65534:65534:nobody:/:/bin/false' >> "$root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' > "$root/etc/group"
tar -C "$root" -c . | docker import \
  --change 'CMD ["/bin/sh"]' \
  --change 'ENV PATH=/bin' \
  - "$IMAGE" >/dev/null
echo "busybox.sh: imported $IMAGE"
