"use client";

import { PrinterIcon } from "lucide-react";
import { Button } from "@/components/ui/button";

/** Opens the browser's print dialog (save as PDF for a dispute). */
export function PrintButton() {
  return (
    <Button type="button" size="sm" onClick={() => window.print()}>
      <PrinterIcon aria-hidden />
      Print or save as PDF
    </Button>
  );
}
