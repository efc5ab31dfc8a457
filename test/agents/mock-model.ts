/**
 * A scripted model server on 127.0.0.1 for the coding-agent tests: it speaks Anthropic Messages (Claude Code,
 * pi) and OpenAI Responses (Codex), streaming as the CLIs require. A conversation's first turn asks for one
 * shell tool call (the `command` it was given); once the request carries that call's result, it answers with
 * text. Requests that offer no shell tool (titles, summaries) get a short text. Every request is kept, so a
 * test can see what the agent sent.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface MockModel {
  url: string;
  requests: Array<{ path: string; body: unknown }>;
  /** The shell command the next conversations ask for. */
  setCommand(command: string): void;
  /** Codex: ask to run the command outside its sandbox (`require_escalated`), which its terminal UI asks a person about. */
  setEscalated(escalated: boolean): void;
  /**
   * Claude Code: the next conversations call AskUserQuestion with this input (when the agent offers that
   * tool) instead of the shell; null goes back to the shell.
   */
  setAskUserQuestion(input: Record<string, unknown> | null): void;
  /** The text of every tool result the agent sent back, in order. */
  toolResults(): string[];
  /** Holds every answer to a request that carries a tool's result until `release` (the agent stays mid-turn). */
  hold(): void;
  release(): void;
  close(): Promise<void>;
}

type Json = Record<string, unknown>;

export async function startMockModel(command: string): Promise<MockModel> {
  let current = command;
  let escalated = false;
  let askUser: Record<string, unknown> | null = null;
  const requests: MockModel['requests'] = [];
  let callSeq = 0;
  let held: Promise<void> | null = null;
  let releaseHeld = (): void => {};
  const server: Server = createServer((req, res) => {
    readBody(req)
      .then((raw) => {
        let body: Json = {};
        try {
          body = raw === '' ? {} : (JSON.parse(raw) as Json);
        } catch {
          body = {};
        }
        const path = (req.url ?? '/').split('?')[0] ?? '/';
        requests.push({ path, body });
        callSeq += 1;
        if (path.endsWith('/messages/count_tokens')) return sendJson(res, { input_tokens: 10 });
        if (held !== null && carriesToolResult(body)) {
          const seq = callSeq;
          return void held.then(() => reply(res, path, body, current, seq));
        }
        return reply(res, path, body, current, callSeq);
      })
      .catch(() => res.destroy());
  });
  function reply(res: ServerResponse, path: string, body: Json, shell: string, seq: number): void {
    if (path.endsWith('/messages')) return anthropic(res, body, shell, seq, askUser);
    if (path.endsWith('/responses')) return openaiResponses(res, body, shell, seq, escalated);
    if (path.endsWith('/chat/completions')) return chatCompletions(res, body, shell, seq);
    if (path.includes(':countTokens')) return sendJson(res, { totalTokens: 10 });
    if (path.includes(':streamGenerateContent') || path.includes(':generateContent'))
      return gemini(res, body, shell, path.includes(':stream'));
    if (path.endsWith('/models')) return sendJson(res, { data: [], object: 'list' });
    return sendJson(res, {});
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    setCommand(next) {
      current = next;
    },
    setEscalated(next) {
      escalated = next;
    },
    setAskUserQuestion(input) {
      askUser = input;
    },
    toolResults: () => requests.flatMap(({ body }) => toolResultTexts(body as Json)),
    hold() {
      held = new Promise((resolve) => (releaseHeld = resolve));
    },
    release() {
      releaseHeld();
      held = null;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function carriesToolResult(body: Json): boolean {
  const messages = Array.isArray(body.messages) ? (body.messages as Json[]) : [];
  const input = Array.isArray(body.input) ? (body.input as Json[]) : [];
  return (
    messages.some(
      (message) =>
        Array.isArray(message.content) &&
        (message.content as Json[]).some((block) => block.type === 'tool_result'),
    ) ||
    input.some((item) => item.type === 'function_call_output') ||
    messages.some((message) => message.role === 'tool') ||
    geminiAnswered(body)
  );
}

/** The tool results a request carries, each as its text (the last request holds the whole conversation). */
function toolResultTexts(body: Json): string[] {
  const messages = Array.isArray(body.messages) ? (body.messages as Json[]) : [];
  const last = messages.at(-1);
  if (last === undefined || !Array.isArray(last.content)) return [];
  return (last.content as Json[])
    .filter((block) => block.type === 'tool_result')
    .map((block) =>
      typeof block.content === 'string'
        ? block.content
        : Array.isArray(block.content)
          ? (block.content as Json[]).map((part) => String(part.text ?? '')).join('')
          : '',
    );
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, value: unknown): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

function sse(res: ServerResponse, events: Array<[string, unknown]>): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const [event, data] of events) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  res.end();
}

// ── Anthropic Messages ─────────────────────────────────────────────────────────

function anthropic(
  res: ServerResponse,
  body: Json,
  command: string,
  seq: number,
  askUser: Json | null,
): void {
  const tools = Array.isArray(body.tools) ? (body.tools as Json[]) : [];
  const bash = tools.find((tool) => tool.name === 'Bash' || tool.name === 'bash');
  // AskUserQuestion is one of Claude Code's deferred tools: not listed, but called by name in the main loop.
  const asking = askUser === null || bash === undefined ? undefined : { name: 'AskUserQuestion' };
  const shell = asking ?? bash;
  const messages = Array.isArray(body.messages) ? (body.messages as Json[]) : [];
  const answered = messages.some(
    (message) =>
      Array.isArray(message.content) &&
      (message.content as Json[]).some((block) => block.type === 'tool_result'),
  );
  const model = typeof body.model === 'string' ? body.model : 'mock';
  const toolUse =
    shell !== undefined && !answered
      ? {
          id: `toolu_mock_${seq}`,
          name: String(shell.name),
          input:
            asking !== undefined && askUser !== null
              ? askUser
              : shell.name === 'Bash'
                ? { command, description: 'Create the file the test checks for' }
                : { command },
        }
      : null;
  const text = toolUse === null ? (shell === undefined ? 'Mock title' : 'Done.') : null;
  const message = {
    id: `msg_mock_${seq}`,
    type: 'message',
    role: 'assistant',
    model,
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 5 },
  };
  if (body.stream !== true) {
    return sendJson(res, {
      ...message,
      content: toolUse === null ? [{ type: 'text', text }] : [{ type: 'tool_use', ...toolUse }],
      stop_reason: toolUse === null ? 'end_turn' : 'tool_use',
    });
  }
  const events: Array<[string, unknown]> = [
    ['message_start', { type: 'message_start', message: { ...message, content: [], stop_reason: null } }],
  ];
  if (toolUse === null) {
    events.push(
      [
        'content_block_start',
        { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      ],
      ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } }],
    );
  } else {
    events.push(
      [
        'content_block_start',
        {
          type: 'content_block_start',
          index: 0,
          content_block: { type: 'tool_use', id: toolUse.id, name: toolUse.name, input: {} },
        },
      ],
      [
        'content_block_delta',
        {
          type: 'content_block_delta',
          index: 0,
          delta: { type: 'input_json_delta', partial_json: JSON.stringify(toolUse.input) },
        },
      ],
    );
  }
  events.push(
    ['content_block_stop', { type: 'content_block_stop', index: 0 }],
    [
      'message_delta',
      {
        type: 'message_delta',
        delta: { stop_reason: toolUse === null ? 'end_turn' : 'tool_use', stop_sequence: null },
        usage: { output_tokens: 5 },
      },
    ],
    ['message_stop', { type: 'message_stop' }],
  );
  sse(res, events);
}

// ── OpenAI Responses ───────────────────────────────────────────────────────────

function openaiResponses(
  res: ServerResponse,
  body: Json,
  command: string,
  seq: number,
  escalated: boolean,
): void {
  const tools = Array.isArray(body.tools) ? (body.tools as Json[]) : [];
  const names = tools.map((tool) => String(tool.name ?? (tool.function as Json | undefined)?.name ?? ''));
  const shellName = ['exec_command', 'shell', 'local_shell', 'shell_command'].find((name) =>
    names.includes(name),
  );
  const input = Array.isArray(body.input) ? (body.input as Json[]) : [];
  const answered = input.some((item) => item.type === 'function_call_output');
  const responseId = `resp_mock_${seq}`;
  const usage = {
    input_tokens: 10,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 5,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 15,
  };
  let item: Json;
  if (shellName !== undefined && !answered) {
    const args =
      shellName === 'exec_command'
        ? escalated
          ? { cmd: command, sandbox_permissions: 'require_escalated', justification: 'The file is needed.' }
          : { cmd: command }
        : shellName === 'shell_command'
          ? { command }
          : { command: ['bash', '-lc', command] };
    item = {
      type: 'function_call',
      id: `fc_mock_${seq}`,
      call_id: `call_mock_${seq}`,
      name: shellName,
      arguments: JSON.stringify(args),
      status: 'completed',
    };
  } else {
    item = {
      type: 'message',
      id: `msg_mock_${seq}`,
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: 'Done.', annotations: [] }],
    };
  }
  const response = {
    id: responseId,
    object: 'response',
    status: 'in_progress',
    output: [] as Json[],
    usage: null,
  };
  sse(res, [
    ['response.created', { type: 'response.created', sequence_number: 0, response }],
    ['response.output_item.added', { type: 'response.output_item.added', output_index: 0, item }],
    ['response.output_item.done', { type: 'response.output_item.done', output_index: 0, item }],
    [
      'response.completed',
      {
        type: 'response.completed',
        response: { ...response, status: 'completed', output: [item], usage },
      },
    ],
  ]);
}

// ── OpenAI Chat Completions (Qwen Code, OpenCode) ──────────────────────────────

/** The shell tool a Chat Completions request offers, by the names the agents give it. */
const CHAT_SHELLS = ['run_shell_command', 'bash', 'shell'];

function chatCompletions(res: ServerResponse, body: Json, command: string, seq: number): void {
  const tools = Array.isArray(body.tools) ? (body.tools as Json[]) : [];
  const names = tools.map((tool) => String((tool.function as Json | undefined)?.name ?? tool.name ?? ''));
  const shellName = CHAT_SHELLS.find((name) => names.includes(name));
  const messages = Array.isArray(body.messages) ? (body.messages as Json[]) : [];
  const answered = messages.some((message) => message.role === 'tool');
  const model = typeof body.model === 'string' ? body.model : 'mock';
  const base = { id: `chatcmpl_mock_${seq}`, object: 'chat.completion.chunk', created: 0, model };
  const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
  const call =
    shellName !== undefined && !answered
      ? {
          index: 0,
          id: `call_mock_${seq}`,
          type: 'function',
          function: {
            name: shellName,
            arguments: JSON.stringify({ command, description: 'Create the file the test checks for' }),
          },
        }
      : null;
  const text = call === null ? (shellName === undefined ? 'Mock title' : 'Done.') : null;
  const delta =
    call === null ? { role: 'assistant', content: text } : { role: 'assistant', tool_calls: [call] };
  const finish = call === null ? 'stop' : 'tool_calls';
  if (body.stream !== true) {
    const message =
      call === null
        ? { role: 'assistant', content: text }
        : { role: 'assistant', content: null, tool_calls: [call] };
    return sendJson(res, {
      ...base,
      object: 'chat.completion',
      choices: [{ index: 0, message, finish_reason: finish }],
      usage,
    });
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const chunks = [
    { ...base, choices: [{ index: 0, delta, finish_reason: null }] },
    { ...base, choices: [{ index: 0, delta: {}, finish_reason: finish }] },
    { ...base, choices: [], usage },
  ];
  for (const chunk of chunks) res.write(`data: ${JSON.stringify(chunk)}\n\n`);
  res.end('data: [DONE]\n\n');
}

// ── Gemini generateContent (Gemini CLI) ─────────────────────────────────────────

function geminiAnswered(body: Json): boolean {
  const contents = Array.isArray(body.contents) ? (body.contents as Json[]) : [];
  return contents.some(
    (content) =>
      Array.isArray(content.parts) &&
      (content.parts as Json[]).some((part) => part.functionResponse !== undefined),
  );
}

function gemini(res: ServerResponse, body: Json, command: string, stream: boolean): void {
  const tools = Array.isArray(body.tools) ? (body.tools as Json[]) : [];
  const names = tools.flatMap((tool) =>
    Array.isArray(tool.functionDeclarations)
      ? (tool.functionDeclarations as Json[]).map((declaration) => String(declaration.name))
      : [],
  );
  const shell = names.includes('run_shell_command');
  const part =
    shell && !geminiAnswered(body)
      ? {
          functionCall: {
            name: 'run_shell_command',
            args: { command, description: 'Create the file the test checks for' },
          },
        }
      : { text: shell ? 'Done.' : 'Mock title' };
  const response = {
    candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
    modelVersion: 'mock-model',
  };
  if (!stream) return sendJson(res, response);
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.end(`data: ${JSON.stringify(response)}\r\n\r\n`);
}

// Run on its own (`node test/agents/mock-model.ts 'touch /tmp/x'`) to try an agent by hand.
if (import.meta.url === `file://${process.argv[1]}`) {
  void startMockModel(process.argv[2] ?? 'touch created-by-agent').then((mock) => {
    console.log(mock.url);
  });
}
