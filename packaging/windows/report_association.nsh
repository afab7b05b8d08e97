; Saved Halfscope reports in Explorer (included by the installer that windows.cmake configures).
;
; A saved report is a pair, NAME.html (self-contained, opens in any browser) and NAME.json (the
; records: core/report/SCHEMA.md). Both extensions belong to other programs, and Windows picks a
; handler by the last extension only, so the installer registers a ProgID, Halfscope.Report, and
; lists it under .json\OpenWithProgids: Halfscope appears in the "Open with" menu of JSON files
; and the default program of .json is left as it was. Opening runs halfscope-open-report.cmd,
; which re-renders the report with this version's analysis into %TEMP% and opens the HTML: the
; user's files are never rewritten.
!ifndef HALFSCOPE_REPORT_ASSOCIATION_NSH
!define HALFSCOPE_REPORT_ASSOCIATION_NSH
!define HALFSCOPE_REPORT_PROGID "Software\Classes\Halfscope.Report"

!macro HalfscopeAssociateReports
  ; SHCTX: HKLM for an all-users (admin) install, HKCU otherwise, as the rest of the installer.
  WriteRegStr SHCTX "${HALFSCOPE_REPORT_PROGID}" "" "Halfscope report"
  WriteRegStr SHCTX "${HALFSCOPE_REPORT_PROGID}\DefaultIcon" "" "$INSTDIR\share\halfscope\halfscope.ico,0"
  WriteRegStr SHCTX "${HALFSCOPE_REPORT_PROGID}\shell\open" "" "Open as a Halfscope report"
  WriteRegStr SHCTX "${HALFSCOPE_REPORT_PROGID}\shell\open\command" "" '"$INSTDIR\bin\halfscope-open-report.cmd" "%1"'
  WriteRegStr SHCTX "Software\Classes\.json\OpenWithProgids" "Halfscope.Report" ""
  ; SHCNE_ASSOCCHANGED: Explorer rereads the associations now, not at the next logon.
  System::Call 'shell32::SHChangeNotify(i 0x08000000, i 0, p 0, p 0)'
!macroend

!macro HalfscopeForgetReports
  DeleteRegValue SHCTX "Software\Classes\.json\OpenWithProgids" "Halfscope.Report"
  DeleteRegKey SHCTX "${HALFSCOPE_REPORT_PROGID}"
  System::Call 'shell32::SHChangeNotify(i 0x08000000, i 0, p 0, p 0)'
!macroend
!endif
