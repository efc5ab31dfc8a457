@echo off
:: `runwarden` of an installed Runwarden on Windows: the app's own executable in Node mode runs the CLI
:: shipped beside this file (docs/DESKTOP-CHECKLIST.md#the-runwarden-command).
setlocal
set ELECTRON_RUN_AS_NODE=1
"%~dp0..\..\Runwarden.exe" "%~dp0..\cli\entry.js" %*
exit /b %ERRORLEVEL%
