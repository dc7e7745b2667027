// What a user would run instead of Toolgate: a bare AI SDK chat route with the same offline model, the same
// current_time tool and the same UI message stream, on plain node:http; no auth, policy or database. Served in its
// own process so the overhead benchmark can read its CPU time apart from the app's. Prints its port when listening.
import http from "node:http";
import { stepCountIs, streamText, tool } from "ai";
import { z } from "zod";
import { createOfflineModel } from "@/lib/runs/offline-model";

const model = createOfflineModel();
const tools = {
  current_time: tool({
    description: "The current time",
    inputSchema: z.object({}),
    execute: async () => ({ now: new Date().toISOString() }),
  }),
};

const server = http.createServer(async (req, res) => {
  let body = "";
  for await (const chunk of req) body += chunk;
  const { text } = JSON.parse(body) as { text: string };
  const result = streamText({
    model,
    messages: [{ role: "user", content: text }],
    tools,
    stopWhen: stepCountIs(5),
    maxRetries: 0,
  });
  const response = result.toUIMessageStreamResponse();
  res.writeHead(response.status, Object.fromEntries(response.headers));
  const reader = response.body!.getReader();
  for (let part = await reader.read(); !part.done; part = await reader.read()) res.write(part.value);
  res.end();
});
server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  console.log(JSON.stringify({ port: typeof address === "object" && address ? address.port : 0 }));
});
