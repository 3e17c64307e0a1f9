/**
 * What Ledgerlink's features need from Xero, in our vocabulary. The only implementation is the HTTP
 * adapter in `xero-http/`, pointed at Xero itself or at the built-in sandbox; unit tests of a service may
 * pass a small fake of this type.
 */
export interface XeroTenantConnection {
  /** Xero's connection id, used to disconnect. */
  connectionId: string;
  tenantId: string;
  tenantName: string | null;
  tenantType: string;
}

/** Who is asking: the user whose token is used and the organisation (tenant) the call is for. */
export interface XeroContext {
  userId: number;
  tenantId: string;
}

export interface XeroPort {
  listConnections(userId: number): Promise<XeroTenantConnection[]>;
  deleteConnection(userId: number, connectionId: string): Promise<void>;
}
