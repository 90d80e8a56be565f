import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

/** A polite live region: screen readers announce each new text (camera state, progress, results). The element is
 * rendered before its text changes, as live regions must be. */
export function Live(props: { text: string }) {
  return (
    <p class="visually-hidden" role="status" aria-live="polite">
      {props.text}
    </p>
  );
}

/** One step of the journey: its container carries `data-step` (the automation contract of docs/journey.md) and its
 * heading takes the focus when the step appears, so that a screen reader starts reading there. */
export function Screen(props: { step: string; title: string; children: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [props.step]);
  return (
    <section class="screen" data-step={props.step} aria-labelledby={`title-${props.step}`}>
      <h1 id={`title-${props.step}`} tabIndex={-1} ref={heading}>
        {props.title}
      </h1>
      {props.children}
    </section>
  );
}
