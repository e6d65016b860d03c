-- wrk script: POST answers as JSON, keeping the id of every answer the server acknowledged (201).
local threads = {}

function setup(thread)
  table.insert(threads, thread)
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
