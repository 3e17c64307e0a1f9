import { queryOptions, useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import type { AppConfig, CurrentUser, LoginRequest, RegisterRequest } from '@/shared/auth';
import type { LoginResponse } from '@/shared/mfa';
import { isMfaChallenge } from '@/shared/mfa-rules';
import { apiPaths } from '@/client/config/paths';
import { api, getMessage } from './api-client';
import { lazySchema } from './lazy-schema';
import { CURRENT_USER_QUERY_OPTIONS, queryKeys } from './query-client';
import { clearSessionExpired, markSessionExpired, onSessionEnded, resetUnauthorizedCount } from './session';
import { dismissToast } from './toast';

export const AUTH_FALLBACKS = {
  login: 'Login failed',
  register: 'Registration failed',
  logout: 'Logout failed',
} as const;

/** GET /api/auth/current-user; a 401 gives null (signed out). */
export async function getCurrentUser(): Promise<CurrentUser | null> {
  const user = await api.getOrNull(apiPaths.currentUser, { schema: lazySchema('currentUserSchema') });
  if (user) resetUnauthorizedCount();
  return user;
}

export const currentUserQueryOptions = () =>
  queryOptions({ queryKey: queryKeys.currentUser, queryFn: getCurrentUser, ...CURRENT_USER_QUERY_OPTIONS });

/** The signed-in user (polled every 30 s). `data` is null when signed out, undefined while loading. */
export function useUser() {
  return useQuery(currentUserQueryOptions());
}

/** GET /api/config: demo or live, and whether the demo sign-in helper exists. */
export async function getAppConfig(): Promise<AppConfig> {
  return api.get(apiPaths.config, { schema: lazySchema('appConfigSchema') });
}

export function useAppConfig() {
  return useQuery({ queryKey: queryKeys.config, queryFn: getAppConfig });
}

/** GET /api/admin/check; a failure is treated as false (docs/product/shell.md §6). */
export async function getIsAdmin(): Promise<boolean> {
  try {
    const answer = await api.get(apiPaths.adminCheck, { schema: lazySchema('adminCheckResponseSchema') });
    return answer.isAdmin;
  } catch {
    return false;
  }
}

export function useIsAdmin(enabled = true) {
  return useQuery({ queryKey: queryKeys.adminCheck, queryFn: getIsAdmin, enabled });
}

async function rethrowWithFallback<T>(promise: Promise<T>, fallback: string): Promise<T> {
  try {
    return await promise;
  } catch (error) {
    throw new Error(getMessage(error, fallback), { cause: error });
  }
}

/** The user, or (two-step sign-in) the step still missing: a code, or setting it up first. */
export function login(body: LoginRequest): Promise<LoginResponse> {
  return rethrowWithFallback(
    api.post(apiPaths.login, body, { schema: lazySchema('loginResponseSchema') }),
    AUTH_FALLBACKS.login,
  );
}

export function register(body: RegisterRequest): Promise<LoginResponse> {
  return rethrowWithFallback(
    api.post(apiPaths.register, body, { schema: lazySchema('loginResponseSchema') }),
    AUTH_FALLBACKS.register,
  );
}

/**
 * The development helper of docs/product/shell.md §6 (demo mode only): fetch the demo credentials and sign in
 * with them.
 */
export async function loginWithDemoAccount(): Promise<LoginResponse> {
  return rethrowWithFallback(
    (async () => {
      const credentials = await api.get(apiPaths.devCredentials, {
        schema: lazySchema('devCredentialsSchema'),
      });
      return api.post(apiPaths.authLogin, credentials, { schema: lazySchema('loginResponseSchema') });
    })(),
    AUTH_FALLBACKS.login,
  );
}

export async function logout(): Promise<void> {
  await rethrowWithFallback(api.post(apiPaths.logout), AUTH_FALLBACKS.logout);
}

/** Makes `user` the signed-in user: the 401 count restarts and nothing cached for someone else survives. */
export function useSignedIn() {
  const queryClient = useQueryClient();
  return (answer: LoginResponse) => {
    // A sign-in still waiting for its second step is not a sign-in yet.
    if (isMfaChallenge(answer)) return;
    const user: CurrentUser = answer;
    resetUnauthorizedCount();
    clearSessionExpired();
    // A message about the failed attempt (e.g. "Login failed") must not stay over the next page.
    dismissToast();
    // Data cached for a previous user must never show for this one.
    queryClient.removeQueries({ predicate: (q) => q.queryKey[0] !== queryKeys.currentUser[0] });
    queryClient.setQueryData(queryKeys.currentUser, user);
  };
}

export function useLogin() {
  const signedIn = useSignedIn();
  return useMutation({ mutationFn: login, onSuccess: signedIn });
}

export function useRegister() {
  const signedIn = useSignedIn();
  return useMutation({ mutationFn: register, onSuccess: signedIn });
}

export function useDemoLogin() {
  const signedIn = useSignedIn();
  return useMutation({ mutationFn: loginWithDemoAccount, onSuccess: signedIn });
}

/** Logout: call the server, then refresh the current-user query (docs/product/shell.md §4 Admin / Logout). */
export function useLogout() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: logout,
    onSuccess: () => {
      queryClient.setQueryData(queryKeys.currentUser, null);
      queryClient.removeQueries({ predicate: (q) => q.queryKey[0] !== queryKeys.currentUser[0] });
      void queryClient.invalidateQueries({ queryKey: queryKeys.currentUser });
    },
  });
}

/**
 * A signed-in user whose session ended elsewhere (signed out in another tab, expired) goes to /auth at the
 * first "Not authenticated" answer, where "Your session has ended" is shown (issue 17 item 10), instead of
 * polling 401s until the next current-user read.
 */
export function watchSessionEnded(queryClient: QueryClient): () => void {
  return onSessionEnded(() => {
    if (!queryClient.getQueryData(queryKeys.currentUser)) return;
    markSessionExpired();
    queryClient.setQueryData(queryKeys.currentUser, null);
    queryClient.removeQueries({ predicate: (q) => q.queryKey[0] !== queryKeys.currentUser[0] });
  });
}
