import { type RefObject, useCallback, useEffect, useState } from 'react';

/**
 * Full screen for one element (the graph page: canvas, toolbar and panels together). `onChange` runs after the
 * element entered or left full screen, so that the canvas can take its new size.
 */
export function useFullscreen(target: RefObject<HTMLElement | null>, onChange: () => void) {
  const [active, setActive] = useState(false);
  useEffect(() => {
    const changed = () => {
      setActive(document.fullscreenElement !== null && document.fullscreenElement === target.current);
      onChange();
    };
    document.addEventListener('fullscreenchange', changed);
    return () => document.removeEventListener('fullscreenchange', changed);
  }, [target, onChange]);
  const toggle = useCallback(() => {
    if (document.fullscreenElement) void document.exitFullscreen();
    else void target.current?.requestFullscreen();
  }, [target]);
  return { supported: document.fullscreenEnabled, active, toggle };
}
