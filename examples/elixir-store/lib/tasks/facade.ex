defmodule StorecheckExample.Tasks.Config do
  @moduledoc """
  The facades' configuration (wire `facade.configure`): require_owner (both eras),
  default_ttl_ms and max_ttl_ms (the modern facade's). One ETS row, read by every
  request process; `reset/0` returns to the defaults.
  """

  @table :storecheck_example_facade_config
  @defaults %{require_owner: false, default_ttl_ms: nil, max_ttl_ms: nil}

  def start do
    :ets.new(@table, [:set, :public, :named_table, read_concurrency: true])
    reset()
  end

  def reset, do: set(@defaults)
  def set(config), do: :ets.insert(@table, {:config, config})
  def get(key), do: :ets.lookup_element(@table, :config, 2)[key]
end

defmodule StorecheckExample.Tasks do
  @moduledoc """
  The legacy facade over the legacy store, as ConduitMCP's `ConduitMcp.Tasks` sits over
  `ConduitMcp.Tasks.Store`: owner stamping and scoping (a denied task answers exactly as
  a missing one), finality, and List re-checking every row the store returned. A status
  change is a conditional update on the status read (the store's update_if/3), so a
  cancel racing a completion cannot overwrite it.
  """

  alias StorecheckExample.Tasks.{Config, EtsStore, Owner}

  @statuses ["working", "input_required", "completed", "failed", "cancelled"]
  @terminal ["completed", "failed", "cancelled"]

  def create(task_id, metadata, owner) when owner in [nil, ""], do: EtsStore.create(task_id, metadata)
  def create(task_id, metadata, owner), do: EtsStore.create(task_id, Map.put(metadata, "owner", owner))

  def get(task_id, caller) do
    with {:ok, task} <- EtsStore.get(task_id) do
      if Owner.visible?(Owner.of(task), caller, Config.get(:require_owner)), do: {:ok, task}, else: {:error, :not_found}
    end
  end

  @doc "The worker's write: unscoped; a status change is checked against finality and the statuses."
  def update(task_id, changes) do
    case Map.fetch(changes, "status") do
      :error -> EtsStore.update(task_id, changes)
      {:ok, to} when to in @statuses -> transition(task_id, :system, changes)
      {:ok, _} -> with {:ok, task} <- get(task_id, :system), do: refuse(task, :invalid_transition)
    end
  end

  def cancel(task_id, caller), do: transition(task_id, caller, %{"status" => "cancelled"})

  def list(opts, caller) do
    require_owner = Config.get(:require_owner)
    scope = if caller == :system, do: :any, else: caller
    status = Keyword.get(opts, :status)

    rows =
      EtsStore.list(status: status, owner: scope, require_owner: require_owner)
      |> Enum.filter(&((status == nil or status(&1) == status) and Owner.visible?(Owner.of(&1), caller, require_owner)))

    case Keyword.get(opts, :limit) do
      nil -> rows
      limit -> Enum.take(rows, max(limit, 0))
    end
  end

  def cleanup(ttl_ms), do: EtsStore.cleanup(ttl_ms)

  # changes written only while the task is still in the status it was read in: a
  # finished task stays finished, whoever wins a race.
  defp transition(task_id, caller, changes) do
    with {:ok, task} <- get(task_id, caller),
         :ok <- refuse(task, :ok) do
      case EtsStore.update_if(task_id, [status(task)], changes) do
        {:error, :conflict} -> transition(task_id, caller, changes)
        answer -> answer
      end
    end
  end

  # A finished task refuses every status change; otherwise answer.
  defp refuse(task, answer) do
    cond do
      status(task) in @terminal -> {:error, :terminal}
      answer == :ok -> :ok
      true -> {:error, answer}
    end
  end

  defp status(task), do: EtsStore.status(task)
end

defmodule StorecheckExample.Ext.Tasks do
  @moduledoc """
  The modern facade over the modern store, as ConduitMCP's `ConduitMcp.Ext.Tasks`: the
  worker's steps (progress, require_input, complete, fail) and the client's (get, update
  with input answers, cancel), each a compare-and-swap of the version it read, read again
  and retried when another write came first. Terminal states are final; each input key is
  single-use over the task's life; answers reach the worker all at once.
  """

  alias StorecheckExample.Tasks.{Clock, Config, Owner}
  alias StorecheckExample.Ext.Tasks.EtsStore

  @terminal ["completed", "failed", "cancelled"]

  def create(opts) do
    if Enum.any?([opts["ttl_ms"], opts["poll_interval_ms"]], &(&1 != nil and &1 <= 0)),
      do: {:error, :invalid},
      else: insert(opts)
  end

  defp insert(opts) do
    ttl = opts["ttl_ms"] || Config.get(:default_ttl_ms)
    max = Config.get(:max_ttl_ms)
    now = Clock.now_ms()

    task = %{
      "task_id" => Base.url_encode64(:crypto.strong_rand_bytes(16), padding: false),
      "owner" => if(opts["owner"] in [nil, ""], do: nil, else: opts["owner"]),
      "status" => "working",
      "status_message" => opts["status_message"] || "",
      "created_at_ms" => now,
      "last_updated_at_ms" => now,
      "ttl_ms" => if(max != nil and (ttl == nil or ttl > max), do: max, else: ttl),
      "poll_interval_ms" => opts["poll_interval_ms"],
      "result" => nil,
      "error" => nil,
      "input_requests" => %{},
      "staged_responses" => %{},
      "input_responses" => %{},
      "issued_keys" => [],
      "version" => 0
    }

    EtsStore.create(task)
  end

  def get(task_id, caller) do
    with {:ok, task} <- EtsStore.get(task_id, :system) do
      if Owner.visible?(task["owner"] || "", caller, Config.get(:require_owner)), do: {:ok, task}, else: {:error, :not_found}
    end
  end

  def status(task_id), do: get(task_id, :system)
  def progress(task_id, message), do: step(task_id, :system, &{:ok, %{&1 | "status_message" => message}})
  def complete(task_id, result), do: finish(task_id, :system, "completed", "result", result || %{})
  def fail(task_id, error), do: finish(task_id, :system, "failed", "error", error)
  def start_failed(task_id, message), do: fail(task_id, %{"code" => -32603, "message" => message})
  def cancel(task_id, caller), do: finish(task_id, caller, "cancelled", nil, nil)

  def require_input(_task_id, requests) when requests == %{}, do: {:error, :invalid}

  def require_input(task_id, requests) do
    step(task_id, :system, fn task ->
      if Enum.any?(Map.keys(requests), &(&1 in task["issued_keys"])) do
        {:error, :key_reused}
      else
        {:ok,
         %{
           task
           | "status" => "input_required",
             "input_requests" => Map.merge(task["input_requests"], requests),
             "issued_keys" => task["issued_keys"] ++ Enum.sort(Map.keys(requests)),
             "input_responses" => %{}
         }}
      end
    end)
  end

  @doc "The client's answers: those to outstanding keys are staged, the last one delivers them all."
  def update(task_id, caller, responses) do
    step(task_id, caller, fn task ->
      answered = Map.take(responses, Map.keys(task["input_requests"]))
      outstanding = Map.drop(task["input_requests"], Map.keys(answered))
      staged = Map.merge(task["staged_responses"], answered)

      cond do
        answered == %{} -> {:unchanged, task}
        outstanding == %{} -> {:ok, %{task | "input_requests" => %{}, "staged_responses" => %{}, "input_responses" => staged, "status" => "working"}}
        true -> {:ok, %{task | "input_requests" => outstanding, "staged_responses" => staged}}
      end
    end)
  end

  defp finish(task_id, caller, status, key, value) do
    step(task_id, caller, fn task ->
      task = %{task | "status" => status}
      {:ok, if(key, do: Map.put(task, key, value), else: task)}
    end)
  end

  # change applied to the live task the caller may see and written by compare-and-swap,
  # again from a fresh read when another write came first.
  defp step(task_id, caller, change) do
    with {:ok, task} <- get(task_id, caller),
         :ok <- if(task["status"] in @terminal, do: {:error, :terminal}, else: :ok) do
      case change.(task) do
        {:ok, next} ->
          next = %{next | "last_updated_at_ms" => max(Clock.now_ms(), task["last_updated_at_ms"])}

          case EtsStore.swap(:system, task["version"], next) do
            {:error, :conflict} -> step(task_id, caller, change)
            answer -> answer
          end

        {:unchanged, task} ->
          {:ok, task}

        error ->
          error
      end
    end
  end
end
