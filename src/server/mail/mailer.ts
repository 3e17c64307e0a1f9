/**
 * Email (issue 43): subcontractors' statements and the contractor's deadline reminders. Through SMTP with
 * nodemailer when SMTP_URL is set; in demo mode without it, into the outbox table a person opens at /outbox (each
 * message is composed by nodemailer all the same, so the outbox holds exactly what SMTP would have carried).
 * Without either, sending is refused with words saying how to set it up.
 */
import nodemailer from 'nodemailer';
import type { Db } from '../db/client';
import { mailOutbox, mailOutboxAttachments } from '../db/schema/index';
import { AppError } from '../lib/app-error';

export interface MailAttachment {
  filename: string;
  contentType: string;
  content: Buffer;
}

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  attachments?: MailAttachment[];
  /** The organisation it is sent for (the outbox shows each member their organisations' mail only). */
  organizationId?: number | null;
}

export interface SentMail {
  messageId: string;
  /** Where it went: 'smtp', or 'outbox' (demo mode). */
  via: 'smtp' | 'outbox';
  /** The outbox entry, in demo mode. */
  outboxId?: number;
}

export interface Mailer {
  /** Whether email can be sent at all (for the screens: a button that cannot work is not offered). */
  readonly mode: 'smtp' | 'outbox' | 'off';
  send(message: MailMessage): Promise<SentMail>;
}

export const MAIL_OFF_MESSAGE =
  'Email is not set up on this server: an administrator sets SMTP_URL (smtp://user:password@host:587) and restarts Ledgerlink.';

export function createMailer(options: {
  smtpUrl: string | undefined;
  from: string;
  /** Demo mode keeps mail in the outbox when no SMTP server is configured. */
  outbox: Db | null;
}): Mailer {
  const { from } = options;
  if (options.smtpUrl) {
    const transport = nodemailer.createTransport(options.smtpUrl);
    return {
      mode: 'smtp',
      async send(message) {
        try {
          const info = await transport.sendMail({
            from,
            to: message.to,
            subject: message.subject,
            text: message.text,
            attachments: (message.attachments ?? []).map((a) => ({
              filename: a.filename,
              contentType: a.contentType,
              content: a.content,
            })),
          });
          return { messageId: String(info.messageId ?? ''), via: 'smtp' };
        } catch (error) {
          // The server's own words, without the URL (it holds the password).
          const reason = error instanceof Error ? error.message.split('\n')[0] : 'unknown error';
          throw new AppError(
            'UNPROCESSABLE',
            `The email could not be sent: the mail server said "${reason}".`,
          );
        }
      },
    };
  }
  const db = options.outbox;
  if (!db) {
    return {
      mode: 'off',
      send() {
        return Promise.reject(new AppError('UNPROCESSABLE', MAIL_OFF_MESSAGE));
      },
    };
  }
  // Composes the RFC 5322 message exactly as SMTP would carry it, without sending it anywhere.
  const composer = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    mode: 'outbox',
    async send(message) {
      const attachments = message.attachments ?? [];
      const info = await composer.sendMail({
        from,
        to: message.to,
        subject: message.subject,
        text: message.text,
        attachments: attachments.map((a) => ({
          filename: a.filename,
          contentType: a.contentType,
          content: a.content,
        })),
      });
      const raw = Buffer.isBuffer(info.message) ? info.message : Buffer.from(String(info.message ?? ''));
      const outboxId = await db.transaction(async (tx) => {
        const [row] = await tx
          .insert(mailOutbox)
          .values({
            organizationId: message.organizationId ?? null,
            sentTo: message.to,
            sentFrom: from,
            subject: message.subject,
            body: message.text,
            raw,
            attachments: attachments.map((a) => ({
              filename: a.filename,
              contentType: a.contentType,
              size: a.content.length,
            })),
          })
          .returning({ id: mailOutbox.id });
        if (!row) throw new Error('the outbox kept nothing');
        if (attachments.length > 0)
          await tx.insert(mailOutboxAttachments).values(
            attachments.map((a, position) => ({
              messageId: row.id,
              position,
              filename: a.filename,
              contentType: a.contentType,
              content: a.content,
            })),
          );
        return row.id;
      });
      return { messageId: String(info.messageId ?? `outbox-${outboxId}`), via: 'outbox', outboxId };
    },
  };
}
