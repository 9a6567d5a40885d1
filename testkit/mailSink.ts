// A mailbox on loopback for n8n's Human review by email, used by the demo and the Human review suite: a
// small SMTP server (no authentication, no TLS) that keeps every message, and a web page that shows them,
// so the reviewer's Approve and Decline links can be clicked without a mail account. Never shipped.
import { createServer as createHttpServer } from 'node:http';
import type { Server as HttpServer } from 'node:http';
import { createServer as createSmtpServer } from 'node:net';
import type { AddressInfo, Server as SmtpServer, Socket } from 'node:net';

/** One message as the mailbox keeps it. */
export interface Mail {
	from: string;
	to: string[];
	subject: string;
	/** The HTML part, decoded; the text part when there is no HTML. */
	html: string;
	/** Which part `html` holds: a plain-text e-mail (a statement) is shown with its line breaks kept. */
	format: 'html' | 'text';
	/** Every link in the message, in order, as a browser would follow it. */
	links: Array<{ label: string; url: string }>;
	receivedAt: string;
}

export interface MailSink {
	smtpPort: number;
	/** The page that lists the messages (JSON at `<url>/messages.json`). */
	url: string;
	messages: () => Mail[];
	close: () => Promise<void>;
}

function decodeQuotedPrintable(text: string): string {
	const bytes = text
		.replace(/=\r?\n/g, '')
		.replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
	return Buffer.from(bytes, 'latin1').toString('utf8');
}

/** Splits a MIME entity into its headers (lower-case names, unfolded) and body. */
function splitEntity(raw: string): { headers: Record<string, string>; body: string } {
	const end = raw.search(/\r?\n\r?\n/);
	const head = end === -1 ? raw : raw.slice(0, end);
	const body = end === -1 ? '' : raw.slice(end).replace(/^\r?\n\r?\n/, '');
	const headers: Record<string, string> = {};
	for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
		const colon = line.indexOf(':');
		if (colon > 0)
			headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
	}
	return { headers, body };
}

/** The text of a MIME entity's leaf parts, by content type (text/html, text/plain). */
function textParts(raw: string, parts: Record<string, string> = {}): Record<string, string> {
	const { headers, body } = splitEntity(raw);
	const type = headers['content-type'] ?? 'text/plain';
	const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
	if (/^multipart\//i.test(type) && boundary) {
		for (const part of body.split(`--${boundary}`).slice(1)) {
			if (part.startsWith('--')) break;
			textParts(part.replace(/^\r?\n/, ''), parts);
		}
		return parts;
	}
	const encoding = (headers['content-transfer-encoding'] ?? '').toLowerCase();
	const text =
		encoding === 'quoted-printable'
			? decodeQuotedPrintable(body)
			: encoding === 'base64'
				? Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8')
				: body;
	parts[type.split(';')[0].trim().toLowerCase()] ??= text;
	return parts;
}

function decodeEntities(text: string): string {
	return text
		.replace(/&amp;/g, '&')
		.replace(/&quot;/g, '"')
		.replace(/&#39;/g, "'")
		.replace(/&lt;/g, '<')
		.replace(/&gt;/g, '>');
}

/** Decodes `=?utf-8?Q?...?=` and `=?utf-8?B?...?=` words in a header. */
function decodeHeader(value: string): string {
	return value.replace(
		/=\?([^?]+)\?([QB])\?([^?]*)\?=/gi,
		(_, _charset: string, kind: string, text: string) =>
			kind.toUpperCase() === 'B'
				? Buffer.from(text, 'base64').toString('utf8')
				: decodeQuotedPrintable(text.replace(/_/g, ' ')),
	);
}

function parseMail(raw: string, from: string, to: string[]): Mail {
	const { headers } = splitEntity(raw);
	const parts = textParts(raw);
	const html = parts['text/html'] ?? parts['text/plain'] ?? '';
	const links = [...html.matchAll(/<a\b[^>]*href="([^"]+)"[^>]*>([\s\S]*?)<\/a>/gi)].map((m) => ({
		url: decodeEntities(m[1]),
		label: decodeEntities(m[2].replace(/<[^>]+>/g, '').trim()),
	}));
	return {
		from,
		to,
		subject: decodeHeader(headers.subject ?? ''),
		html,
		format: parts['text/html'] === undefined ? 'text' : 'html',
		links,
		receivedAt: new Date().toISOString(),
	};
}

/** Talks SMTP with one client: enough of RFC 5321 for nodemailer without authentication. */
function serveSmtp(socket: Socket, keep: (mail: Mail) => void): void {
	let buffer = '';
	let from = '';
	let to: string[] = [];
	let data: string[] | undefined;
	const reply = (line: string) => socket.write(`${line}\r\n`);
	reply('220 littlepay-mailbox ESMTP');
	socket.on('data', (chunk: Buffer) => {
		buffer += chunk.toString('latin1');
		let newline: number;
		while ((newline = buffer.indexOf('\r\n')) !== -1) {
			const line = buffer.slice(0, newline);
			buffer = buffer.slice(newline + 2);
			if (data) {
				if (line === '.') {
					keep(parseMail(Buffer.from(data.join('\r\n'), 'latin1').toString('utf8'), from, to));
					data = undefined;
					reply('250 OK: kept');
				} else {
					data.push(line.startsWith('..') ? line.slice(1) : line);
				}
				continue;
			}
			const command = line.slice(0, 4).toUpperCase();
			if (command === 'EHLO') reply('250-littlepay-mailbox\r\n250 8BITMIME');
			else if (command === 'HELO') reply('250 littlepay-mailbox');
			else if (command === 'MAIL') {
				from = /<([^>]*)>/.exec(line)?.[1] ?? '';
				to = [];
				reply('250 OK');
			} else if (command === 'RCPT') {
				to.push(/<([^>]*)>/.exec(line)?.[1] ?? '');
				reply('250 OK');
			} else if (command === 'DATA') {
				data = [];
				reply('354 End data with <CR><LF>.<CR><LF>');
			} else if (command === 'RSET') {
				from = '';
				to = [];
				reply('250 OK');
			} else if (command === 'NOOP') reply('250 OK');
			else if (command === 'QUIT') {
				reply('221 Bye');
				socket.end();
			} else reply('502 Command not implemented');
		}
	});
	socket.on('error', () => socket.destroy());
}

function escapeHtml(text: string): string {
	return text.replace(
		/[&<>"]/g,
		(c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] ?? c,
	);
}

/** What the message's frame shows: its HTML, or its plain text with the line breaks kept, as a mail client would. */
function messageDocument(mail: Mail): { srcdoc: string; height: number } {
	if (mail.format === 'text') {
		// Rows as the frame wraps them (about 110 characters of this font in the page's width).
		const lines = mail.html
			.split(/\r?\n/)
			.reduce((rows, line) => rows + Math.max(1, Math.ceil(line.length / 110)), 0);
		return {
			srcdoc: `<pre style="white-space:pre-wrap;margin:0;font:13px/1.45 ui-monospace,Menlo,Consolas,monospace">${escapeHtml(mail.html)}</pre>`,
			height: Math.min(2400, Math.max(200, 40 + lines * 22)),
		};
	}
	return { srcdoc: mail.html.replace(/<a\b/gi, '<a target="_blank"'), height: 420 };
}

function mailboxPage(mails: Mail[]): string {
	const items = mails
		.map((mail) => {
			const { srcdoc, height } = messageDocument(mail);
			return `<article><h2>${escapeHtml(mail.subject || '(no subject)')}</h2><p class="meta">to ${escapeHtml(mail.to.join(', '))} at ${mail.receivedAt}</p><iframe style="height:${height}px" sandbox="allow-popups allow-popups-to-escape-sandbox" srcdoc="${escapeHtml(srcdoc)}"></iframe></article>`;
		})
		.reverse()
		.join('\n');
	return `<!doctype html><html><head><meta charset="utf-8"><title>Demo mailbox</title><style>body{font-family:system-ui,sans-serif;margin:2rem auto;max-width:900px;color:#222}article{border:1px solid #ddd;border-radius:8px;padding:1rem;margin:1rem 0}h2{font-size:1.1rem;margin:0}.meta{color:#666;font-size:.85rem}iframe{width:100%;height:420px;border:0}</style></head><body><h1>Demo mailbox</h1><p>What n8n's Send Email nodes sent to this demo's SMTP server (newest first): Human review requests (approve or decline a tool call with its buttons), example 9's alerts and example 11's daily statement. Reload for new mail.</p>${items || '<p>No mail yet.</p>'}</body></html>`;
}

/** Starts the mailbox on loopback: SMTP on `smtpPort` (0 = free port), the page on `httpPort`. */
export async function startMailSink(
	options: { smtpPort?: number; httpPort?: number } = {},
): Promise<MailSink> {
	const mails: Mail[] = [];
	const smtp: SmtpServer = createSmtpServer((socket) =>
		serveSmtp(socket, (mail) => mails.push(mail)),
	);
	const http: HttpServer = createHttpServer((req, res) => {
		if (req.url === '/messages.json') {
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end(JSON.stringify(mails));
			return;
		}
		res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
		res.end(mailboxPage(mails));
	});
	await new Promise<void>((r) => smtp.listen(options.smtpPort ?? 0, '127.0.0.1', () => r()));
	await new Promise<void>((r) => http.listen(options.httpPort ?? 0, '127.0.0.1', () => r()));
	return {
		smtpPort: (smtp.address() as AddressInfo).port,
		url: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
		messages: () => [...mails],
		close: async () => {
			await new Promise<void>((r) => smtp.close(() => r()));
			await new Promise<void>((r) => http.close(() => r()));
		},
	};
}
