import { createElement, useEffect, useState, type ComponentType, type ReactNode } from 'react';

type Loader<P> = () => Promise<ComponentType<P>>;

const loadedComponents = new Map<Loader<never>, ComponentType<never>>();

/**
 * A component kept out of the first screen's download (bench/results.md §3), loaded once `wanted` turns true:
 * renders `placeholder` until it is there, then the component with `props`. Unlike React.lazy it never
 * suspends, so a component already loaded shows at once and one that arrives is not held back by React's 300
 * ms Suspense throttle. A failed download leaves the placeholder and is tried again the next time `wanted`
 * turns true.
 */
export function useDeferredElement<P extends object>(
  load: Loader<P>,
  wanted: boolean,
  props: P,
  placeholder: ReactNode,
): ReactNode {
  const component = useDeferredComponent(load, wanted);
  // The component's identity is stable (one per loader, cached above), so it never remounts.
  return component ? createElement(component, props) : placeholder;
}

function useDeferredComponent<P>(load: Loader<P>, wanted: boolean): ComponentType<P> | null {
  const [component, setComponent] = useState<ComponentType<P> | null>(
    () => (loadedComponents.get(load as Loader<never>) as ComponentType<P> | undefined) ?? null,
  );
  useEffect(() => {
    if (!wanted || component) return;
    let live = true;
    load().then(
      (loaded) => {
        loadedComponents.set(load as Loader<never>, loaded as ComponentType<never>);
        if (live) setComponent(() => loaded);
      },
      (error: unknown) => console.warn('A part of the page could not be loaded', error),
    );
    return () => {
      live = false;
    };
  }, [load, wanted, component]);
  return component;
}
