import { render, screen } from '@testing-library/react';
import { useState } from 'react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { useDeferredElement } from './deferred-component';

function Greeting({ name }: { name: string }) {
  return <p>Hello {name}</p>;
}

function Host({ load }: { load: () => Promise<typeof Greeting> }) {
  const [wanted, setWanted] = useState(false);
  const element = useDeferredElement(
    load,
    wanted,
    { name: 'Sam' },
    <button onClick={() => setWanted(true)}>Load</button>,
  );
  return <>{element}</>;
}

describe('deferred components (outside the first screen)', () => {
  it('shows the placeholder, loads nothing until wanted, then the component with its props', async () => {
    const load = vi.fn(() => Promise.resolve(Greeting));
    render(<Host load={load} />);
    expect(load).not.toHaveBeenCalled();
    await userEvent.click(screen.getByRole('button', { name: 'Load' }));
    expect(await screen.findByText('Hello Sam')).toBeInTheDocument();
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('a component loaded once shows at once the next time, without loading again', async () => {
    const load = vi.fn(() => Promise.resolve(Greeting));
    const first = render(<Host load={load} />);
    await userEvent.click(screen.getByRole('button', { name: 'Load' }));
    await screen.findByText('Hello Sam');
    first.unmount();
    render(<Host load={load} />);
    expect(screen.getByText('Hello Sam')).toBeInTheDocument();
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('a failed download keeps the placeholder', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const load = vi.fn(() => Promise.reject(new Error('chunk failed')));
    render(<Host load={load} />);
    await userEvent.click(screen.getByRole('button', { name: 'Load' }));
    await vi.waitFor(() => expect(warn).toHaveBeenCalled());
    expect(screen.getByRole('button', { name: 'Load' })).toBeInTheDocument();
  });
});
