import { Expand, Minus, Plus, RotateCcw } from 'lucide-react';
import { useEffect, useRef, useState, type PointerEvent as ReactPointerEvent } from 'react';
import { Button } from '@/client/components/ui/button';
import { cn } from '@/client/lib/utils';
import { ATTACHMENT_ZOOM, stepAttachmentZoom } from '../utils/screen';

/**
 * An attachment image with the controls of docs/product/features.md §2/§4: zoom out / in in 0.25 steps, the
 * wheel in 0.1 steps, between 50% and 300%, reset to 300%, and drag to pan. Zoom is relative to the panel's
 * width, so 100% shows the whole width of the page and the default 300% reads a till receipt at a glance.
 */
/**
 * A picture opens fitted to the panel (100%: the page's whole width), not on a blurred corner at 300%;
 * 300% stays one press away as the reset (issue 17 item 18).
 */
const FIT_ZOOM = 1;

export function ImageViewer({
  src,
  name,
  onExpand,
  className,
}: {
  src: string;
  name: string;
  onExpand?: () => void;
  className?: string;
}) {
  const [zoom, setZoom] = useState<number>(FIT_ZOOM);
  const [failed, setFailed] = useState(false);
  const viewport = useRef<HTMLDivElement>(null);
  const drag = useRef<{ x: number; y: number; left: number; top: number } | null>(null);
  const [isDragging, setDragging] = useState(false);

  useEffect(() => {
    setZoom(FIT_ZOOM);
    setFailed(false);
  }, [src]);

  /** Zooms and keeps the point under `focus` (viewport coordinates) where it was. */
  const zoomBy = (delta: number, focus?: { x: number; y: number }) => {
    const el = viewport.current;
    setZoom((current) => {
      const next = stepAttachmentZoom(current, delta);
      if (el && next !== current) {
        const fx = focus?.x ?? el.clientWidth / 2;
        const fy = focus?.y ?? el.clientHeight / 2;
        const ratio = next / current;
        requestAnimationFrame(() => {
          el.scrollLeft = (el.scrollLeft + fx) * ratio - fx;
          el.scrollTop = (el.scrollTop + fy) * ratio - fy;
        });
      }
      return next;
    });
  };

  // The wheel zooms instead of scrolling the page: that needs a listener React does not make passive.
  useEffect(() => {
    const el = viewport.current;
    if (!el) return;
    const onWheel = (event: WheelEvent) => {
      event.preventDefault();
      const rect = el.getBoundingClientRect();
      zoomBy(event.deltaY < 0 ? ATTACHMENT_ZOOM.wheelStep : -ATTACHMENT_ZOOM.wheelStep, {
        x: event.clientX - rect.left,
        y: event.clientY - rect.top,
      });
    };
    el.addEventListener('wheel', onWheel, { passive: false });
    return () => el.removeEventListener('wheel', onWheel);
  }, []);

  const onPointerDown = (event: ReactPointerEvent<HTMLDivElement>) => {
    // Touch scrolls natively; the mouse drags.
    if (event.pointerType !== 'mouse' || event.button !== 0 || !viewport.current) return;
    drag.current = {
      x: event.clientX,
      y: event.clientY,
      left: viewport.current.scrollLeft,
      top: viewport.current.scrollTop,
    };
    viewport.current.setPointerCapture(event.pointerId);
    setDragging(true);
  };
  const onPointerMove = (event: ReactPointerEvent<HTMLDivElement>) => {
    const start = drag.current;
    const el = viewport.current;
    if (!start || !el) return;
    el.scrollLeft = start.left - (event.clientX - start.x);
    el.scrollTop = start.top - (event.clientY - start.y);
  };
  const endDrag = (event: ReactPointerEvent<HTMLDivElement>) => {
    if (!drag.current) return;
    drag.current = null;
    setDragging(false);
    viewport.current?.releasePointerCapture(event.pointerId);
  };

  const percent = Math.round(zoom * 100);
  return (
    <div className={cn('flex min-h-0 flex-col gap-2', className)}>
      <div className="flex flex-wrap items-center gap-1" role="toolbar" aria-label={`Zoom ${name}`}>
        <Button
          variant="outline"
          size="icon"
          aria-label="Zoom out"
          onClick={() => zoomBy(-ATTACHMENT_ZOOM.buttonStep)}
          disabled={zoom <= ATTACHMENT_ZOOM.min}
        >
          <Minus aria-hidden />
        </Button>
        <span className="w-14 text-center text-sm tabular" aria-live="polite">
          {percent}%
        </span>
        <Button
          variant="outline"
          size="icon"
          aria-label="Zoom in"
          onClick={() => zoomBy(ATTACHMENT_ZOOM.buttonStep)}
          disabled={zoom >= ATTACHMENT_ZOOM.max}
        >
          <Plus aria-hidden />
        </Button>
        <Button
          variant="outline"
          size="sm"
          onClick={() => setZoom(ATTACHMENT_ZOOM.initial)}
          aria-label="Reset zoom to 300%"
        >
          <RotateCcw aria-hidden />
          300%
        </Button>
        {onExpand ? (
          <Button variant="outline" size="sm" className="ml-auto" onClick={onExpand}>
            <Expand aria-hidden />
            Expand
          </Button>
        ) : null}
      </div>
      <div
        ref={viewport}
        data-keyboard-scope="local"
        tabIndex={0}
        role="region"
        aria-label={`${name}: drag or use the arrow keys to move around, the wheel or + and - to zoom`}
        className={cn(
          'min-h-0 flex-1 overflow-auto rounded-lg border border-border bg-muted/60 [touch-action:pan-x_pan-y]',
          isDragging ? 'cursor-grabbing select-none' : 'cursor-grab',
        )}
        onPointerDown={onPointerDown}
        onPointerMove={onPointerMove}
        onPointerUp={endDrag}
        onPointerCancel={endDrag}
        onKeyDown={(event) => {
          if (event.key === '+' || event.key === '=') zoomBy(ATTACHMENT_ZOOM.buttonStep);
          else if (event.key === '-') zoomBy(-ATTACHMENT_ZOOM.buttonStep);
          else if (event.key === '0') setZoom(ATTACHMENT_ZOOM.initial);
        }}
      >
        {failed ? (
          <p className="p-6 text-sm text-muted-foreground">
            This image could not be shown. Download it to open it on this device.
          </p>
        ) : (
          <img
            src={src}
            alt={name}
            draggable={false}
            onError={() => setFailed(true)}
            style={{ width: `${zoom * 100}%` }}
            className="block h-auto max-w-none"
          />
        )}
      </div>
    </div>
  );
}
