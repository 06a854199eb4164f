import type { AnchorHTMLAttributes, MouseEvent } from 'react';
import { navigate } from '../shell/router';

/** An anchor that changes the page without a reload (modifier clicks still open a new tab). */
export function Link({ href, onClick, ...rest }: AnchorHTMLAttributes<HTMLAnchorElement> & { href: string }) {
  const click = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event);
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
    event.preventDefault();
    navigate(href);
  };
  return <a href={href} onClick={click} {...rest} />;
}

/** The graph explorer opened on an entity's neighbourhood, the entity selected. */
export function graphHref(entityId: string): string {
  return `/graph?start=${encodeURIComponent(entityId)}`;
}
