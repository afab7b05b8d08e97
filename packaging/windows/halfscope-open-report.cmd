@echo off
rem Opens a saved Halfscope report (NAME.json) from Explorer's "Open with" menu: re-renders it
rem with this version's analysis into %TEMP% and opens the HTML there. The saved files are not
rem touched. Usage: halfscope-open-report.cmd NAME.json
setlocal
if "%~1"=="" (
  echo usage: halfscope-open-report.cmd SAVED.json
  pause
  exit /b 2
)
set "out=%TEMP%\halfscope-report-%~n1.html"
"%~dp0halfscope-cli.exe" report "%~1" --out "%out%"
if errorlevel 1 (
  echo.
  echo Halfscope could not read %~1 as a saved report.
  pause
  exit /b 1
)
start "" "%out%"
