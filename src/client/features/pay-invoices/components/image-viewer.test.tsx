import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { ImageViewer } from './image-viewer';

describe('ImageViewer', () => {
  it('opens fitted to the panel and keeps 300% as the reset (issue 17 item 18)', async () => {
    const user = userEvent.setup();
    render(<ImageViewer src="/z-report.png" name="Z report.png" />);
    const toolbar = screen.getByRole('toolbar', { name: 'Zoom Z report.png' });
    expect(toolbar).toHaveTextContent('100%');
    expect(screen.getByRole('img', { name: 'Z report.png' })).toHaveStyle({ width: '100%' });
    await user.click(screen.getByRole('button', { name: 'Reset zoom to 300%' }));
    expect(screen.getByText('300%', { selector: 'span' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Zoom in' })).toBeDisabled();
  });
});
