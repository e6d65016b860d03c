-- wrk script: POST answers as JSON, keeping the id of every answer the server acknowledged (201).
-- With WRITERS set ("name<TAB>path<TAB>body" a line), each request is the next writer's, named by
-- the proxy header; thread n of THREADS takes every THREADS-th writer, so the connections of one
-- thread cycle through writers of their own. Requests are formatted once, in init.
local threads = {}

function setup(thread)
  table.insert(threads, thread)
  thread:set("index", #threads - 1)
end

function init(args)
  created = 0
  failed = 0
  ids = {}
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
  wrk.headers["X-CSRF-Token"] = os.getenv("CSRF_TOKEN")
  wrk.headers["Cookie"] = "tiercards_csrf=" .. os.getenv("CSRF_TOKEN")
  wrk.body = os.getenv("ATTEMPT_BODY")
  -- One writer for all threads when there are fewer writers than threads.
  local lines = {}
  for line in string.gmatch(os.getenv("WRITERS") or "", "[^\n]+") do lines[#lines + 1] = line end
  local count = math.min(tonumber(os.getenv("THREADS") or "1"), math.max(#lines, 1))
  writers = {}
  for n, line in ipairs(lines) do
    if (n - 1) % count == index % count then
      local name, path, body = string.match(line, "([^\t]*)\t([^\t]*)\t(.*)")
      local headers = {}
      for key, value in pairs(wrk.headers) do headers[key] = value end
      headers["Remote-User"] = name
      writers[#writers + 1] = wrk.format("POST", path, headers, body)
    end
  end
  if #writers == 0 then writers[1] = wrk.format() end
  turn = 0
end

function request()
  turn = turn % #writers + 1
  return writers[turn]
end

function response(status, headers, body)
  if status == 201 then
    created = created + 1
    ids[#ids + 1] = string.match(body, '"id":%s*(%d+)')
  else
    failed = failed + 1
  end
end

function done(summary, latency, requests)
  local total_created, total_failed = 0, 0
  for _, thread in ipairs(threads) do
    total_created = total_created + thread:get("created")
    total_failed = total_failed + thread:get("failed")
    io.write("ids " .. table.concat(thread:get("ids"), ",") .. "\n")
  end
  io.write(string.format("acknowledged %d\nrefused %d\n", total_created, total_failed))
end
