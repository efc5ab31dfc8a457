#!/bin/bash
# The deb's after-remove script: undoes after-install.sh (the /usr/bin/runwarden link to the CLI launcher and
# the AppArmor profile).
cli='/opt/${sanitizedProductName}/resources/bin/runwarden'
if type update-alternatives >/dev/null 2>&1; then
  update-alternatives --remove '${executable}' "$cli" || true
else
  rm -f '/usr/bin/${executable}'
fi

profile='/etc/apparmor.d/${executable}'
if [ -f "$profile" ]; then
  if apparmor_status --enabled >/dev/null 2>&1; then
    if ! { [ -x /usr/bin/ischroot ] && /usr/bin/ischroot; } && hash apparmor_parser 2>/dev/null; then
      apparmor_parser --remove "$profile" || true
    fi
  fi
  rm -f "$profile"
fi
