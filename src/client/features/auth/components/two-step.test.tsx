import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { MFA_TEXTS } from '@/shared/mfa';
import { testUser } from '@/client/testing/fixtures';
import { renderApp } from '@/client/testing/render-app';
import { server } from '@/client/testing/server';

const CODES = [
  'abcde-fghjk',
  'mnpqr-stuvw',
  'xyz23-45678',
  'aaaaa-bbbbb',
  'ccccc-ddddd',
  'eeeee-fffff',
  'ggggg-hhhhh',
  'jjjjj-kkkkk',
  'mmmmm-nnnnn',
  'ppppp-qqqqq',
];
const QR = 'data:image/png;base64,iVBORw0KGgo=';

/** Signed out until `signIn()`; the current user follows. */
function signedOutUntil() {
  let signedIn = false;
  server.use(
    http.get('*/api/auth/current-user', () =>
      signedIn
        ? HttpResponse.json(testUser)
        : HttpResponse.json({ message: 'Not authenticated' }, { status: 401 }),
    ),
  );
  return () => {
    signedIn = true;
  };
}

async function submitPassword(user: ReturnType<typeof userEvent.setup>) {
  await user.type(await screen.findByLabelText('Username'), 'sam');
  await user.type(screen.getByLabelText('Password'), 'correct-horse');
  await user.click(screen.getByRole('button', { name: 'Sign in' }));
}

describe('two-step sign-in on /auth', () => {
  it('asks for the code after the password, then signs in', async () => {
    const signIn = signedOutUntil();
    const sent: unknown[] = [];
    server.use(
      http.post('*/api/login', () => HttpResponse.json({ mfaRequired: true })),
      http.post('*/api/auth/mfa/verify', async ({ request }) => {
        const body = (await request.json()) as { code: string };
        sent.push(body);
        if (body.code !== '123456')
          return HttpResponse.json({ message: MFA_TEXTS.wrongCode }, { status: 400 });
        signIn();
        return HttpResponse.json(testUser);
      }),
    );
    const user = userEvent.setup();
    renderApp('/auth');
    await submitPassword(user);

    expect(await screen.findByRole('heading', { name: 'Two-step sign-in' })).toBeInTheDocument();
    const field = screen.getByLabelText('Authentication code');
    expect(field).toHaveAttribute('autocomplete', 'one-time-code');
    await user.click(screen.getByRole('button', { name: 'Verify' }));
    expect(await screen.findByText(MFA_TEXTS.codeRequired)).toBeInTheDocument();
    await user.type(field, '12345');
    await user.click(screen.getByRole('button', { name: 'Verify' }));
    expect(await screen.findByText(MFA_TEXTS.codeFormat)).toBeInTheDocument();
    expect(sent).toEqual([]);

    await user.clear(field);
    await user.type(field, '654321');
    await user.click(screen.getByRole('button', { name: 'Verify' }));
    expect(await screen.findByText(MFA_TEXTS.wrongCode)).toBeInTheDocument();
    await user.type(screen.getByLabelText('Authentication code'), '123456');
    await user.click(screen.getByRole('button', { name: 'Verify' }));
    expect(await screen.findByRole('heading', { name: 'Today' })).toBeInTheDocument();
  });

  it('accepts a recovery code instead', async () => {
    const signIn = signedOutUntil();
    server.use(
      http.post('*/api/login', () => HttpResponse.json({ mfaRequired: true })),
      http.post('*/api/auth/mfa/verify', async ({ request }) => {
        expect(await request.json()).toEqual({ code: 'abcde-fghjk' });
        signIn();
        return HttpResponse.json(testUser);
      }),
    );
    const user = userEvent.setup();
    renderApp('/auth');
    await submitPassword(user);
    await user.click(await screen.findByRole('button', { name: 'Use a recovery code' }));
    await user.type(screen.getByLabelText('Recovery code'), 'abcde-fghjk');
    await user.click(screen.getByRole('button', { name: 'Verify' }));
    expect(await screen.findByRole('heading', { name: 'Today' })).toBeInTheDocument();
  });

  it('Back to sign in ends the pending sign-in', async () => {
    signedOutUntil();
    let loggedOut = false;
    server.use(
      http.post('*/api/login', () => HttpResponse.json({ mfaRequired: true })),
      http.post('*/api/logout', () => {
        loggedOut = true;
        return HttpResponse.json({ ok: true });
      }),
    );
    const user = userEvent.setup();
    renderApp('/auth');
    await submitPassword(user);
    await user.click(await screen.findByRole('button', { name: 'Back to sign in' }));
    expect(await screen.findByRole('heading', { name: 'Welcome to Ledgerlink' })).toBeInTheDocument();
    await waitFor(() => expect(loggedOut).toBe(true));
  });

  it('makes an administrator set it up first when it is compulsory, and shows the recovery codes before going on', async () => {
    const signIn = signedOutUntil();
    server.use(
      http.post('*/api/login', () => HttpResponse.json({ mfaSetupRequired: true })),
      http.post('*/api/auth/mfa/setup', () =>
        HttpResponse.json({
          secret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
          otpauthUri: 'otpauth://totp/x',
          qrCode: QR,
        }),
      ),
      http.post('*/api/auth/mfa/enable', () => {
        signIn();
        return HttpResponse.json({ recoveryCodes: CODES, user: testUser });
      }),
    );
    const user = userEvent.setup();
    renderApp('/auth');
    await submitPassword(user);
    expect(await screen.findByRole('heading', { name: 'Set up two-step sign-in' })).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Set up now' }));
    expect(await screen.findByRole('img', { name: /QR code/ })).toHaveAttribute('src', QR);
    expect(screen.getByLabelText('Set-up key')).toHaveTextContent('JBSW Y3DP EHPK 3PXP JBSW Y3DP EHPK 3PXP');
    await user.type(screen.getByLabelText('Code from the app'), '123456');
    await user.click(screen.getByRole('button', { name: 'Turn on two-step sign-in' }));

    const list = await screen.findByRole('list', { name: 'Recovery codes' });
    expect(within(list).getAllByRole('listitem')).toHaveLength(10);
    expect(screen.getByRole('button', { name: 'Download' })).toBeInTheDocument();
    // Still here while the codes are on screen, even though the session is now whole.
    expect(window.location.pathname).toBe('/auth');
    await user.click(screen.getByRole('button', { name: 'I have saved my codes, continue' }));
    expect(await screen.findByRole('heading', { name: 'Today' })).toBeInTheDocument();
  });
});

describe('/account/security', () => {
  it('is reached from the user menu and sets two-step sign-in up', async () => {
    let enabled = false;
    server.use(
      http.get('*/api/auth/mfa', () =>
        HttpResponse.json({ enabled, available: true, required: false, recoveryCodesLeft: enabled ? 10 : 0 }),
      ),
      http.post('*/api/auth/mfa/setup', () =>
        HttpResponse.json({
          secret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
          otpauthUri: 'otpauth://totp/x',
          qrCode: QR,
        }),
      ),
      http.post('*/api/auth/mfa/enable', async ({ request }) => {
        const { code } = (await request.json()) as { code: string };
        if (code !== '123456') return HttpResponse.json({ message: MFA_TEXTS.wrongCode }, { status: 400 });
        enabled = true;
        return HttpResponse.json({ recoveryCodes: CODES, user: testUser });
      }),
    );
    const user = userEvent.setup();
    renderApp('/organizations');
    await user.click(await screen.findByRole('button', { name: /User menu/ }));
    await user.click(await screen.findByRole('menuitem', { name: 'Two-step sign-in' }));
    expect(await screen.findByRole('heading', { name: 'Two-step sign-in' })).toBeInTheDocument();
    expect(window.location.pathname).toBe('/account/security');
    expect(await screen.findByText('Off')).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Set up two-step sign-in' }));
    await user.type(await screen.findByLabelText('Code from the app'), '000000');
    await user.click(screen.getByRole('button', { name: 'Turn on two-step sign-in' }));
    expect(await screen.findByText(MFA_TEXTS.wrongCode)).toBeInTheDocument();
    await user.clear(screen.getByLabelText('Code from the app'));
    await user.type(screen.getByLabelText('Code from the app'), '123456');
    await user.click(screen.getByRole('button', { name: 'Turn on two-step sign-in' }));
    expect(await screen.findByRole('list', { name: 'Recovery codes' })).toHaveTextContent('abcde-fghjk');
    await user.click(screen.getByRole('button', { name: 'Done' }));
    expect(await screen.findByText('On')).toBeInTheDocument();
    expect(screen.getByText('10 of 10 recovery codes left.')).toBeInTheDocument();
  });

  it('turns it off with the password', async () => {
    let enabled = true;
    server.use(
      http.get('*/api/auth/mfa', () =>
        HttpResponse.json({ enabled, available: true, required: false, recoveryCodesLeft: enabled ? 2 : 0 }),
      ),
      http.post('*/api/auth/mfa/disable', async ({ request }) => {
        const body = (await request.json()) as { password?: string };
        if (body.password !== 'correct-horse')
          return HttpResponse.json({ message: MFA_TEXTS.wrongPassword }, { status: 400 });
        enabled = false;
        return HttpResponse.json({ enabled: false });
      }),
    );
    const user = userEvent.setup();
    renderApp('/account/security');
    expect(await screen.findByText('Create new ones before they run out.')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Turn off' }));
    const dialog = await screen.findByRole('dialog');
    await user.click(within(dialog).getByRole('button', { name: 'Use my password instead' }));
    await user.type(within(dialog).getByLabelText('Password'), 'nope');
    await user.click(within(dialog).getByRole('button', { name: 'Turn off' }));
    expect(await within(dialog).findByText(MFA_TEXTS.wrongPassword)).toBeInTheDocument();
    await user.clear(within(dialog).getByLabelText('Password'));
    await user.type(within(dialog).getByLabelText('Password'), 'correct-horse');
    await user.click(within(dialog).getByRole('button', { name: 'Turn off' }));
    expect(await screen.findByText('Off')).toBeInTheDocument();
  });

  it('cannot be turned off when compulsory, and is not offered to a Sign in with Xero account', async () => {
    server.use(
      http.get('*/api/auth/mfa', () =>
        HttpResponse.json({ enabled: true, available: true, required: true, recoveryCodesLeft: 10 }),
      ),
    );
    const { unmount } = renderApp('/account/security');
    expect(await screen.findByText('Required for administrators')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Turn off' })).not.toBeInTheDocument();
    unmount();
    server.use(
      http.get('*/api/auth/mfa', () =>
        HttpResponse.json({ enabled: false, available: false, required: false, recoveryCodesLeft: 0 }),
      ),
    );
    renderApp('/account/security');
    expect(await screen.findByText(MFA_TEXTS.notAvailable)).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Set up two-step sign-in' })).not.toBeInTheDocument();
  });
});
