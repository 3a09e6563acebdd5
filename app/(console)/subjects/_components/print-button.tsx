"use client";

/** Opens the browser's print dialog (save as PDF for a dispute). */
export function PrintButton() {
  return (
    <button type="button" onClick={() => window.print()}>
      Print or save as PDF
    </button>
  );
}
