#!/bin/bash
# The deb's after-install script (electron-builder fills in the two names in braces). It does what
# electron-builder's own one does, except that /usr/bin/runwarden is the CLI launcher the app ships, not the app:
# a terminal, an agent hook and `runwarden exec` reach the CLI by that name; the desktop entry starts the app
# by its full path (docs/DESKTOP-CHECKLIST.md#the-runwarden-command).
app='/opt/${sanitizedProductName}'
cli="$app/resources/bin/runwarden"

if type update-alternatives >/dev/null 2>&1; then
  # An older install linked /usr/bin/runwarden to the app without update-alternatives.
  if [ -L '/usr/bin/${executable}' ] && [ "$(readlink '/usr/bin/${executable}')" != '/etc/alternatives/${executable}' ]; then
    rm -f '/usr/bin/${executable}'
  fi
  # An older install registered the app itself under this name.
  update-alternatives --remove '${executable}' "$app/${executable}" >/dev/null 2>&1 || true
  update-alternatives --install '/usr/bin/${executable}' '${executable}' "$cli" 100 || ln -sf "$cli" '/usr/bin/${executable}'
else
  ln -sf "$cli" '/usr/bin/${executable}'
fi

# Chromium's setuid sandbox helper is needed only where user namespaces are not available.
if ! { [ -L /proc/self/ns/user ] && unshare --user true; } 2>/dev/null; then
  chmod 4755 "$app/chrome-sandbox" || true
else
  chmod 0755 "$app/chrome-sandbox" || true
fi

if hash update-mime-database 2>/dev/null; then
  update-mime-database /usr/share/mime || true
fi
if hash update-desktop-database 2>/dev/null; then
  update-desktop-database /usr/share/applications || true
fi

# Ubuntu 24.04 restricts user namespaces to programs with an AppArmor profile: install electron-builder's
# profile for the app where this AppArmor can parse it (22.04's cannot, and needs none).
if apparmor_status --enabled >/dev/null 2>&1; then
  profile_source="$app/resources/apparmor-profile"
  profile_target='/etc/apparmor.d/${executable}'
  if apparmor_parser --skip-kernel-load --debug "$profile_source" >/dev/null 2>&1; then
    cp -f "$profile_source" "$profile_target"
    if ! { [ -x /usr/bin/ischroot ] && /usr/bin/ischroot; } && hash apparmor_parser 2>/dev/null; then
      apparmor_parser --replace --write-cache --skip-read-cache "$profile_target"
    fi
  else
    echo "Skipping the AppArmor profile: this AppArmor cannot parse it"
  fi
fi
