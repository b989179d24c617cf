@echo off
rem kubectl runs this to complete "kubectl offsets <TAB>" (kubectl 1.26+); the plugin executable does the work.
"%~dp0kubectl-offsets.exe" __complete %*
