defmodule StorecheckExample.Shim do
  @moduledoc """
  The wire shim (docs/wire.md, protocol 1): JSON Lines on stdin and stdout around the two
  ETS stores. Each store operation runs in a process of its own and is answered when it
  finishes, so storecheck's concurrent calls meet inside the stores as a server's request
  processes do (a serial shim would hide their races). The session ops (hello, reset,
  clock, delay) are answered in order by the reading process.

  stdout carries answers only; diagnostics go to stderr.
  """

  alias StorecheckExample.JSON
  alias StorecheckExample.Tasks.{Clock, Config, EtsStore}
  alias StorecheckExample.Ext.Tasks.EtsStore, as: ExtStore
  alias StorecheckExample.{Ext, Tasks}

  @modern_keys ~w(task_id owner status status_message created_at_ms last_updated_at_ms ttl_ms
                  poll_interval_ms result error input_requests staged_responses input_responses
                  issued_keys version)

  def main do
    # Raw bytes both ways: the JSON module reads and writes UTF-8 itself.
    :ok = :io.setopts(:standard_io, binary: true, encoding: :latin1)
    Clock.start()
    EtsStore.start()
    ExtStore.start()
    Config.start()
    loop(0)
    # The answers still being worked out go out before the VM halts.
    running(:infinity)
  end

  # delay is how long the next store operation sleeps before it runs (the delay op).
  defp loop(delay) do
    running(0)

    case IO.binread(:stdio, :line) do
      :eof -> :ok
      {:error, reason} -> IO.puts(:stderr, "elixir-store: reading stdin: #{inspect(reason)}")
      line -> line |> request() |> dispatch(delay) |> loop()
    end
  end

  # Counts the request processes that finished, waiting up to wait for each of the
  # others, so that the mailbox does not grow over a run.
  defp running(wait) do
    n = Process.get(:running, 0)

    if n > 0 do
      receive do
        {:DOWN, _, :process, _, _} ->
          Process.put(:running, n - 1)
          running(wait)
      after
        wait -> :ok
      end
    end
  end

  defp request(line) do
    case JSON.decode!(line) do
      %{"id" => id} = req -> {id, req["op"], req["args"] || %{}}
      _ -> {:skip, line}
    end
  rescue
    e in JSON.DecodeError -> {:skip, "#{inspect(String.slice(line, 0, 200))}: #{e.message}"}
  end

  defp dispatch({:skip, why}, delay) do
    IO.puts(:stderr, "elixir-store: cannot answer #{why}")
    delay
  end

  defp dispatch({id, op, args}, delay) when op in ["hello", "reset", "clock", "delay", "facade.configure"] do
    {answer, delay} = session(op, args, delay)
    reply(id, answer)
    delay
  end

  defp dispatch({id, op, args}, delay) do
    spawn_monitor(fn ->
      if delay > 0, do: Process.sleep(delay)
      reply(id, run(op, args))
    end)

    Process.put(:running, Process.get(:running, 0) + 1)

    0
  end

  defp session("hello", %{"protocol" => p}, delay) when is_integer(p) and p >= 1 do
    hello = %{
      "protocol" => min(p, 2),
      "name" => "elixir-example",
      "eras" => ["legacy", "modern"],
      "legacy" => %{"cancel" => true, "cleanup" => true, "conditional_update" => true},
      "clock" => true,
      "delay" => true
    }

    facade = %{"layers" => ["store", "facade"], "facade" => %{"require_owner" => true, "default_ttl" => true, "max_ttl" => true}}
    {{:ok, if(p >= 2, do: Map.merge(hello, facade), else: hello)}, delay}
  end

  defp session("hello", _, delay), do: {{:error, {:unsupported, "this store speaks protocols 1 and 2"}}, delay}

  defp session("reset", _, _) do
    EtsStore.reset()
    ExtStore.reset()
    Config.reset()
    {{:ok, nil}, 0}
  end

  defp session("clock", %{"now_ms" => ms}, delay) when is_integer(ms) or is_nil(ms) do
    Clock.set(ms)
    {{:ok, nil}, delay}
  end

  defp session("delay", %{"ms" => ms}, _) when is_integer(ms) and ms in 0..10_000, do: {{:ok, nil}, ms}
  defp session("facade.configure", args, delay) do
    ttls = [args["default_ttl_ms"], args["max_ttl_ms"]]

    if is_boolean(args["require_owner"] || false) and Enum.all?(ttls, &(&1 == nil or (is_integer(&1) and &1 > 0))) do
      Config.set(%{require_owner: args["require_owner"] == true, default_ttl_ms: hd(ttls), max_ttl_ms: List.last(ttls)})
      {{:ok, nil}, delay}
    else
      {{:error, {:invalid, "facade.configure: require_owner is a boolean, a ttl positive or null"}}, delay}
    end
  end

  defp session(op, _, delay), do: {{:error, {:invalid, "#{op}: bad arguments"}}, delay}

  # One store operation: the store's answer, or the error a bug in it raised.
  defp run(op, args) do
    op(op, args)
  rescue
    e ->
      IO.puts(:stderr, "elixir-store: #{op} failed: #{Exception.format(:error, e, __STACKTRACE__)}")
      {:error, {:internal, Exception.message(e)}}
  end

  defp op("legacy.create", %{"task_id" => id, "metadata" => meta}) when is_map(meta),
    do: EtsStore.create(id, meta) |> named(id)

  defp op("legacy.get", %{"task_id" => id}), do: EtsStore.get(id) |> named(id)

  defp op("legacy.update", %{"task_id" => id, "changes" => changes}) when is_map(changes),
    do: EtsStore.update(id, changes) |> named(id)

  defp op("legacy.update_if", %{"task_id" => id, "allowed_statuses" => allowed, "changes" => changes})
       when is_list(allowed) and is_map(changes),
       do: EtsStore.update_if(id, allowed, changes) |> named(id)

  defp op("legacy.cancel", %{"task_id" => id}), do: EtsStore.cancel(id) |> named(id)
  defp op("legacy.delete", %{"task_id" => id}), do: {:ok, EtsStore.delete(id) && nil}

  defp op("legacy.list", args) do
    with {:ok, status} <- optional(args["status"], &is_binary/1),
         {:ok, limit} <- optional(args["limit"], &is_integer/1),
         {:ok, scope} <- scope(args["owner"] || %{"scope" => "any"}, ["any", "anonymous", "principal"]) do
      {:ok, EtsStore.list(status: status, limit: limit, owner: scope, require_owner: args["require_owner"] == true)}
    end
  end

  defp op("legacy.cleanup", %{"ttl_ms" => ttl}) when is_integer(ttl), do: {:ok, EtsStore.cleanup(ttl)}

  defp op("modern.create", %{"task" => task}) do
    with :ok <- modern_task(task), do: ExtStore.create(task) |> named(task["task_id"])
  end

  defp op("modern.get", %{"task_id" => id, "caller" => caller}) do
    with {:ok, caller} <- scope(caller, ["system", "anonymous", "principal"]),
         do: ExtStore.get(id, caller) |> named(id)
  end

  defp op("modern.swap", %{"caller" => caller, "expected_version" => v, "task" => task}) when is_integer(v) do
    with :ok <- modern_task(task),
         {:ok, caller} <- scope(caller, ["system", "anonymous", "principal"]),
         do: ExtStore.swap(caller, v, task) |> named(task["task_id"])
  end

  defp op("legacy.tasks." <> op, args), do: legacy_facade(op, args)
  defp op("modern.tasks." <> op, args), do: modern_facade(op, args)

  defp op("modern.delete", %{"task_id" => id}), do: {:ok, ExtStore.delete(id) && nil}
  defp op("modern.sweep", _), do: {:ok, ExtStore.sweep()}

  defp op(op, _) when is_binary(op) do
    if String.starts_with?(op, ["legacy.", "modern."]) and op in known_ops(),
      do: {:error, {:invalid, "#{op}: bad arguments"}},
      else: {:error, {:unsupported, "unknown op #{inspect(op)}"}}
  end

  defp op(op, _), do: {:error, {:unsupported, "unknown op #{inspect(op)}"}}

  defp legacy_facade("create", %{"task_id" => id, "metadata" => meta, "owner" => owner})
       when is_map(meta) and (is_binary(owner) or is_nil(owner)),
       do: Tasks.create(id, meta, owner) |> named(id)

  defp legacy_facade("update", %{"task_id" => id, "changes" => changes} = args) when is_map(changes) do
    # The worker's write has no caller (docs/spec.md 1.2).
    if args["caller"] == nil,
      do: Tasks.update(id, changes) |> named(id),
      else: {:error, {:invalid, "legacy.tasks.update: caller must be null (the worker's write)"}}
  end

  defp legacy_facade("cleanup", %{"ttl_ms" => ttl}) when is_integer(ttl), do: {:ok, Tasks.cleanup(ttl)}

  defp legacy_facade(op, %{"caller" => caller} = args) do
    with {:ok, caller} <- scope(caller, ["system", "anonymous", "principal"]) do
      case {op, args} do
        {"get", %{"task_id" => id}} -> Tasks.get(id, caller) |> named(id)
        {"cancel", %{"task_id" => id}} -> Tasks.cancel(id, caller) |> named(id)
        {"list", _} -> facade_list(args, caller)
        _ -> bad(op)
      end
    end
  end

  defp legacy_facade(op, _), do: bad(op)

  defp facade_list(args, caller) do
    with {:ok, status} <- optional(args["status"], &is_binary/1),
         {:ok, limit} <- optional(args["limit"], &is_integer/1),
         do: {:ok, Tasks.list([status: status, limit: limit], caller)}
  end

  defp modern_facade("create", %{"options" => opts}) when is_map(opts) do
    with {:ok, _} <- optional(opts["owner"], &is_binary/1),
         {:ok, _} <- optional(opts["status_message"], &is_binary/1),
         {:ok, _} <- optional(opts["ttl_ms"], &is_integer/1),
         {:ok, _} <- optional(opts["poll_interval_ms"], &is_integer/1),
         do: Ext.Tasks.create(opts) |> named("")
  end

  defp modern_facade(op, %{"task_id" => id} = args) do
    modern_step(op, args) |> named(id)
  end

  defp modern_facade(op, _), do: bad(op)

  defp modern_step(op, %{"task_id" => id} = args) do
    case {op, args} do
      {"status", _} -> Ext.Tasks.status(id)
      {"start_failed", %{"message" => m}} when is_binary(m) -> Ext.Tasks.start_failed(id, m)
      {"progress", %{"message" => m}} when is_binary(m) -> Ext.Tasks.progress(id, m)
      {"require_input", %{"requests" => r}} when is_map(r) -> Ext.Tasks.require_input(id, r)
      {"complete", %{"result" => r}} when is_map(r) or is_nil(r) -> Ext.Tasks.complete(id, r)
      {"fail", %{"error" => e}} when is_map(e) -> Ext.Tasks.fail(id, e)
      {_, %{"caller" => caller}} -> with {:ok, c} <- scope(caller, ["system", "anonymous", "principal"]), do: modern_client(op, id, c, args)
      _ -> bad(op)
    end
  end

  defp modern_client("get", id, caller, _), do: Ext.Tasks.get(id, caller)
  defp modern_client("cancel", id, caller, _), do: Ext.Tasks.cancel(id, caller)
  defp modern_client("update", id, caller, %{"responses" => r}) when is_map(r), do: Ext.Tasks.update(id, caller, r)
  defp modern_client(op, _, _, _), do: bad(op)

  defp bad(op), do: {:error, {:invalid, "#{op}: bad arguments"}}

  defp known_ops,
    do: ~w(legacy.create legacy.get legacy.update legacy.update_if legacy.cancel legacy.delete
           legacy.list legacy.cleanup modern.create modern.get modern.swap modern.delete modern.sweep)

  defp optional(nil, _), do: {:ok, nil}
  defp optional(v, ok?), do: if(ok?.(v), do: {:ok, v}, else: {:error, {:invalid, "argument of the wrong type"}})

  # A wire scope or caller, refused unless its form is one of allowed.
  defp scope(%{"scope" => s} = c, allowed) do
    cond do
      s not in allowed -> {:error, {:invalid, "bad caller or scope"}}
      s != "principal" -> {:ok, String.to_existing_atom(s)}
      is_binary(c["id"]) and c["id"] != "" -> {:ok, {:principal, c["id"]}}
      true -> {:error, {:invalid, "a principal needs a non-empty id"}}
    end
  end

  defp scope(_, _), do: {:error, {:invalid, "bad caller or scope"}}

  defp modern_task(task) when is_map(task) do
    if Enum.sort(Map.keys(task)) == Enum.sort(@modern_keys) and is_binary(task["task_id"]),
      do: :ok,
      else: {:error, {:invalid, "a task has exactly the keys of docs/wire.md"}}
  end

  defp modern_task(_), do: {:error, {:invalid, "a task must be an object"}}

  # One message for missing, expired and foreign tasks (S-OWN-2).
  defp named({:error, :not_found}, id), do: {:error, {:not_found, "task not found: #{id}"}}
  defp named({:error, :exists}, id), do: {:error, {:exists, "task already exists: #{id}"}}
  defp named({:error, :conflict}, id), do: {:error, {:conflict, "task #{id} changed or is not in an allowed status"}}
  defp named({:error, :terminal}, id), do: {:error, {:terminal, "task #{id} is in a terminal status"}}
  defp named({:error, :invalid_transition}, id), do: {:error, {:invalid_transition, "task #{id}: no such transition"}}
  defp named({:error, :key_reused}, id), do: {:error, {:key_reused, "task #{id}: an input key was issued before"}}
  defp named({:error, :invalid}, id), do: {:error, {:invalid, "task #{inspect(id)}: invalid id or immutable field changed"}}
  defp named(answer, _), do: answer

  defp reply(id, {:ok, value}), do: write(%{"id" => id, "ok" => value})

  defp reply(id, {:error, {code, message}}),
    do: write(%{"id" => id, "error" => %{"code" => Atom.to_string(code), "message" => message}})

  # One write per answer: the lines of concurrent answers never interleave.
  defp write(answer), do: IO.binwrite(:stdio, [JSON.encode(answer), ?\n])
end
