/**
 * The sandbox's sign-in and consent pages: plain HTML forms and a little CSS (no scripts), laid out
 * like Xero's own login → "allow access" screens, clearly marked as the sandbox.
 */
export function escapeHtml(value: string): string {
  return value.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );
}

const CSS = `
*{box-sizing:border-box}
html,body{margin:0;padding:0}
body{font-family:-apple-system,BlinkMacSystemFont,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;background:#f2f4f7;color:#1e2a3a;min-height:100vh;display:flex;flex-direction:column;align-items:center}
.top{width:100%;display:flex;justify-content:center;padding:32px 16px 20px}
.brand{display:flex;align-items:center;gap:12px;font-weight:700;font-size:20px;color:#0f2a44;letter-spacing:-.01em}
.logo{width:44px;height:44px;border-radius:50%;background:#13b5ea;color:#fff;display:flex;align-items:center;justify-content:center;font-size:26px;font-weight:700;line-height:1;padding-bottom:3px}
.badge{font-size:11px;font-weight:700;letter-spacing:.06em;text-transform:uppercase;color:#8a4b00;background:#fff1d6;border:1px solid #f3cf8a;border-radius:999px;padding:3px 9px}
.card{background:#fff;width:calc(100% - 32px);max-width:480px;border-radius:10px;box-shadow:0 1px 2px rgba(16,24,40,.06),0 6px 24px rgba(16,24,40,.08);padding:32px 36px;margin:0 auto}
fieldset{border:0;padding:0;margin:0 0 22px;min-width:0}
legend{padding:0}
h1{font-size:22px;margin:0 0 6px;color:#0f2a44;line-height:1.3}
.sub{margin:0 0 24px;color:#5b6b7f;font-size:15px;line-height:1.5}
.section{margin:0 0 22px}
.label{display:block;font-size:13px;font-weight:600;color:#34475d;margin:0 0 10px}
.choice{display:flex;align-items:center;gap:12px;border:1px solid #d5dce5;border-radius:8px;padding:12px 14px;margin:0 0 10px;cursor:pointer;background:#fff}
.choice:hover{border-color:#13b5ea;background:#f5fbfe}
.choice input{width:18px;height:18px;accent-color:#0078c8;margin:0;flex:none}
.avatar{width:36px;height:36px;border-radius:50%;background:#e1f4fc;color:#006da3;font-weight:700;font-size:14px;display:flex;align-items:center;justify-content:center;flex:none}
.org{width:36px;height:36px;border-radius:8px;background:#eef1f5;color:#34475d;font-weight:700;font-size:14px;display:flex;align-items:center;justify-content:center;flex:none}
.who{display:flex;flex-direction:column;min-width:0}
.who strong{font-size:15px;color:#1e2a3a}
.who span{display:block;font-size:13px;color:#5b6b7f;overflow-wrap:anywhere}
input[type=email]{width:100%;font:inherit;font-size:15px;padding:11px 12px;border:1px solid #b9c4d0;border-radius:6px;color:#1e2a3a}
input[type=email]:focus{outline:2px solid #13b5ea;outline-offset:1px;border-color:#13b5ea}
.or{display:flex;align-items:center;gap:12px;color:#7a8899;font-size:13px;margin:18px 0 12px}
.or:before,.or:after{content:"";flex:1;height:1px;background:#e3e8ee}
.perms{list-style:none;margin:0;padding:0;border:1px solid #e3e8ee;border-radius:8px}
.perms li{display:flex;gap:10px;align-items:flex-start;padding:10px 14px;font-size:14px;line-height:1.4;border-top:1px solid #eef1f5}
.perms li:first-child{border-top:0}
.tick{color:#1c8a4a;font-weight:700;flex:none}
.user{display:flex;align-items:center;gap:12px;background:#f7f9fb;border:1px solid #e3e8ee;border-radius:8px;padding:10px 14px;margin:0 0 22px}
.user .who{flex:1}
.user a{font-size:13px;color:#0078c8;text-decoration:none;white-space:nowrap}
.actions{display:flex;gap:12px;margin-top:26px}
button{font:inherit;font-size:15px;font-weight:600;border-radius:6px;padding:12px 20px;cursor:pointer;border:1px solid transparent;flex:1}
.primary{background:#0078c8;color:#fff}
.primary:hover{background:#0063a6}
.secondary{background:#fff;color:#1e2a3a;border-color:#b9c4d0}
.secondary:hover{background:#f2f4f7}
.error{background:#fdecec;border:1px solid #f5b5b5;color:#9b1c1c;border-radius:6px;padding:10px 12px;font-size:14px;margin:0 0 18px}
.note{color:#7a8899;font-size:12.5px;line-height:1.5;margin:22px 0 0;text-align:center}
.foot{color:#7a8899;font-size:12px;padding:24px 16px 32px;text-align:center}
code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:13px;background:#f2f4f7;padding:1px 5px;border-radius:4px;word-break:break-all}
@media (max-width:520px){.card{padding:24px 18px;border-radius:8px;width:calc(100% - 20px)}.top{padding:22px 16px 14px}h1{font-size:20px}.actions{flex-direction:column-reverse}.choice{gap:10px;padding:10px 12px}.avatar,.org{width:32px;height:32px;font-size:13px}}
`;

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en-GB">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)} | Xero Sandbox</title>
<style>${CSS}</style>
</head>
<body>
<header class="top"><div class="brand"><span class="logo" aria-hidden="true">x</span><span>Xero</span><span class="badge">Sandbox</span></div></header>
<main class="card">
${body}
</main>
<footer class="foot">Ledgerlink's built-in Xero sandbox &middot; simulated data, no real Xero account is used</footer>
</body>
</html>`;
}

function initials(name: string): string {
  return (
    name
      .split(/[\s@.]+/)
      .filter(Boolean)
      .slice(0, 2)
      .map((p) => p[0]?.toUpperCase() ?? '')
      .join('') || '?'
  );
}

export interface LoginPageUser {
  email: string;
  name: string;
  orgCount: number;
}

export function renderLoginPage(input: {
  requestId: string;
  appName: string;
  users: LoginPageUser[];
  error?: string;
  email?: string;
}): string {
  const users = input.users
    .map(
      (
        u,
        i,
      ) => `<label class="choice"><input type="radio" name="email" value="${escapeHtml(u.email)}"${i === 0 && !input.email ? ' checked' : ''}>
<span class="avatar" aria-hidden="true">${escapeHtml(initials(u.name))}</span>
<span class="who"><strong>${escapeHtml(u.name)}</strong><span>${escapeHtml(u.email)}</span><span>${u.orgCount} organisation${u.orgCount === 1 ? '' : 's'}</span></span></label>`,
    )
    .join('\n');
  return layout(
    'Log in',
    `<h1>Log in to Xero</h1>
<p class="sub">to continue to <strong>${escapeHtml(input.appName)}</strong>. Choose a sandbox user, or sign in with any other email.</p>
${input.error ? `<div class="error" role="alert">${escapeHtml(input.error)}</div>` : ''}
<form method="post" action="/identity/connect/authorize/login">
<input type="hidden" name="request" value="${escapeHtml(input.requestId)}">
<fieldset>
<legend class="label">Sandbox users</legend>
${users}
</fieldset>
<div class="or">or use another email</div>
<label class="label" for="new_email">Email address</label>
<input type="email" id="new_email" name="new_email" placeholder="you@example.com" autocomplete="email" value="${escapeHtml(input.email ?? '')}">
<div class="actions"><button class="primary" type="submit" name="action" value="login">Log in</button></div>
</form>
<p class="note">Any email works here: a new sandbox user is created with access to the demo organisations.</p>`,
  );
}

export interface ConsentPageOrg {
  tenantId: string;
  name: string;
  checked: boolean;
}

const SCOPE_TEXT: Record<string, string> = {
  openid: 'Verify your identity with Xero',
  profile: 'See your name',
  email: 'See your email address',
  offline_access: 'Keep access when you are not using the app',
  'accounting.transactions': 'View and manage your business transactions',
  'accounting.transactions.read': 'View your business transactions',
  'accounting.invoices': 'View and manage your invoices and bills',
  'accounting.invoices.read': 'View your invoices and bills',
  'accounting.payments': 'View and manage your payments',
  'accounting.payments.read': 'View your payments',
  'accounting.manualjournals': 'View and manage your manual journals',
  'accounting.manualjournals.read': 'View your manual journals',
  'accounting.settings': 'View and manage your organisation settings (accounts, tax rates, CIS)',
  'accounting.settings.read': 'View your organisation settings',
  'accounting.contacts': 'View and manage your contacts',
  'accounting.contacts.read': 'View your contacts',
  'accounting.attachments': 'View and manage your attachments',
  'accounting.attachments.read': 'View your attachments',
};

export function renderConsentPage(input: {
  requestId: string;
  appName: string;
  user: { name: string; email: string };
  scopes: string[];
  orgs: ConsentPageOrg[];
  needsOrg: boolean;
  error?: string;
}): string {
  const perms = input.scopes
    .filter((s) => s !== 'openid')
    .map(
      (s) =>
        `<li><span class="tick" aria-hidden="true">&#10003;</span><span>${escapeHtml(SCOPE_TEXT[s] ?? s)}</span></li>`,
    )
    .join('\n');
  const orgs = input.orgs
    .map(
      (
        o,
      ) => `<label class="choice"><input type="checkbox" name="tenants" value="${escapeHtml(o.tenantId)}"${o.checked ? ' checked' : ''}>
<span class="org" aria-hidden="true">${escapeHtml(initials(o.name))}</span>
<span class="who"><strong>${escapeHtml(o.name)}</strong><span>United Kingdom &middot; GBP</span></span></label>`,
    )
    .join('\n');
  return layout(
    'Allow access',
    `<h1>${escapeHtml(input.appName)} wants to access your Xero data</h1>
<p class="sub">Review what the app will be able to do, then choose the organisations to connect.</p>
${input.error ? `<div class="error" role="alert">${escapeHtml(input.error)}</div>` : ''}
<div class="user"><span class="avatar" aria-hidden="true">${escapeHtml(initials(input.user.name))}</span><span class="who"><strong>${escapeHtml(input.user.name)}</strong><span>${escapeHtml(input.user.email)}</span></span><a href="/identity/connect/authorize/switch?request=${encodeURIComponent(input.requestId)}">Not you?</a></div>
<form method="post" action="/identity/connect/consent">
<input type="hidden" name="request" value="${escapeHtml(input.requestId)}">
<div class="section"><span class="label">${escapeHtml(input.appName)} will be able to</span>
<ul class="perms">
${perms}
</ul></div>
${
  input.needsOrg
    ? `<fieldset><legend class="label">Organisations to connect</legend>
${orgs || '<div class="error">This user has no organisations.</div>'}
</fieldset>`
    : ''
}
<div class="actions"><button class="secondary" type="submit" name="action" value="cancel" formnovalidate>Cancel</button><button class="primary" type="submit" name="action" value="allow">Allow access</button></div>
</form>
<p class="note">You can disconnect ${escapeHtml(input.appName)} at any time. Only the organisations you tick are shared.</p>`,
  );
}

export function renderErrorPage(error: string, description: string): string {
  return layout(
    'Error',
    `<h1>Sorry, something went wrong</h1>
<p class="sub">The app that sent you here made a request the Xero sandbox can't accept.</p>
<div class="error" role="alert"><strong>Error: ${escapeHtml(error)}</strong><br>${escapeHtml(description)}</div>
<p class="note">If you are the developer, check the client id and that the redirect URI is registered exactly.</p>`,
  );
}
