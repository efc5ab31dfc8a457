/**
 * Names both sides of browser mode agree on (docs/ARCHITECTURE.md#browser-mode): the server
 * (main/serve/) and the page's transport (renderer/src/lib/api/).
 */

/** The sign-in URL's one-time code: `/?code=…`. */
export const SIGN_IN_PARAM = 'code';
/** The sign-in page carries the session key in this meta tag (the CSP allows no inline script). */
export const SESSION_KEY_META = 'runwarden-session-key';
/** The page sends its session key in this header... */
export const SESSION_KEY_HEADER = 'X-Runwarden-Key';
/** ...and, on the event stream (EventSource cannot set headers), in this query parameter. */
export const SESSION_KEY_PARAM = 'key';
/** Answers 200 while the session is good, 401 once it is not: how the page tells "expired" from "down". */
export const SESSION_CHECK_PATH = '/api/session';
/**
 * How many pushes serve had sent when it ran a request (a header on each API answer), and when a page's
 * event stream joined (the stream's first event, `hello`): a page whose first reads ran after every push
 * its stream missed has nothing to re-read (docs/ARCHITECTURE.md#the-pages-connection).
 */
export const PUSH_COUNT_HEADER = 'X-Runwarden-Pushes';
export const STREAM_HELLO_EVENT = 'hello';
