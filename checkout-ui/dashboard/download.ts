// Files the dashboard hands the browser to save (a CSV export, recovery codes): made in the page,
// never sent through the server.

/** Saves `content` as a file called `filename`, as the browser's download. */
export function saveFile(filename: string, content: string, type: string) {
  const link = document.createElement("a");
  link.href = URL.createObjectURL(new Blob([content], { type }));
  link.download = filename;
  link.click();
  URL.revokeObjectURL(link.href);
}
