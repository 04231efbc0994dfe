// What jsdom lacks and JupyterLab's packages touch when they load (JupyterLab's own test setup adds
// the same): a DragEvent class and window.matchMedia.
if (typeof globalThis.DragEvent === 'undefined') {
  class DragEvent extends MouseEvent {}
  (globalThis as Record<string, unknown>).DragEvent = DragEvent;
}
if (typeof window.matchMedia !== 'function') {
  window.matchMedia = (query: string) =>
    ({
      matches: false,
      media: query,
      onchange: null,
      addListener: () => undefined,
      removeListener: () => undefined,
      addEventListener: () => undefined,
      removeEventListener: () => undefined,
      dispatchEvent: () => false
    }) as MediaQueryList;
}
