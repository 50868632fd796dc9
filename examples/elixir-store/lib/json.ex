defmodule StorecheckExample.JSON do
  @moduledoc """
  JSON for the wire that keeps every value exact (docs/wire.md, "Numbers must stay exact").

  Elixir 1.14 and OTP 25 ship no JSON module, and a double would round
  9223372036854775807 and shorten 0.1000000000000000055511151231257827. Integers become
  Elixir integers (exact at any size); every other number stays its source text, as
  `{:number, text}`, and is written back verbatim. A lone surrogate escape (`"\\ud800"`)
  is kept as its three-byte form so that it is not valid UTF-8 and round-trips.
  """

  import Bitwise

  defmodule DecodeError do
    defexception [:message]
  end

  # --- decoding ---------------------------------------------------------------------

  @doc "The value of one JSON text; raises DecodeError on anything else."
  def decode!(text) do
    {value, rest} = value(skip(text))

    case skip(rest) do
      "" -> value
      _ -> fail("trailing bytes")
    end
  end

  defp skip(<<c, rest::binary>>) when c in [?\s, ?\t, ?\n, ?\r], do: skip(rest)
  defp skip(rest), do: rest

  defp value(<<?{, rest::binary>>), do: object(skip(rest), %{})
  defp value(<<?[, rest::binary>>), do: array(skip(rest), [])
  defp value(<<?", rest::binary>>), do: string(rest, [])
  defp value(<<"true", rest::binary>>), do: {true, rest}
  defp value(<<"false", rest::binary>>), do: {false, rest}
  defp value(<<"null", rest::binary>>), do: {nil, rest}
  defp value(<<c, _::binary>> = text) when c == ?- or c in ?0..?9, do: number(text)
  defp value(_), do: fail("unexpected input")

  defp object(<<?}, rest::binary>>, acc), do: {acc, rest}
  defp object(text, acc), do: member(text, acc)

  # After "{" or a comma comes a key: "{"a":1,}" is not JSON.
  defp member(<<?", rest::binary>>, acc) do
    {key, rest} = string(rest, [])

    case skip(rest) do
      <<?:, rest::binary>> ->
        {v, rest} = value(skip(rest))
        acc = Map.put(acc, key, v)

        case skip(rest) do
          <<?,, rest::binary>> -> member(skip(rest), acc)
          <<?}, rest::binary>> -> {acc, rest}
          _ -> fail("object: expected , or }")
        end

      _ ->
        fail("object: expected :")
    end
  end

  defp member(_, _), do: fail("object: expected a key")

  defp array(<<?], rest::binary>>, []), do: {[], rest}

  defp array(text, acc) do
    {v, rest} = value(text)

    case skip(rest) do
      <<?,, rest::binary>> -> array_next(skip(rest), [v | acc])
      <<?], rest::binary>> -> {Enum.reverse([v | acc]), rest}
      _ -> fail("array: expected , or ]")
    end
  end

  defp array_next(<<?], _::binary>>, _), do: fail("array: trailing comma")
  defp array_next(text, acc), do: array(text, acc)

  defp string(<<?", rest::binary>>, acc), do: {IO.iodata_to_binary(Enum.reverse(acc)), rest}

  defp string(<<?\\, e, rest::binary>>, acc) when e in [?", ?\\, ?/],
    do: string(rest, [<<e>> | acc])

  defp string(<<?\\, ?b, rest::binary>>, acc), do: string(rest, ["\b" | acc])
  defp string(<<?\\, ?f, rest::binary>>, acc), do: string(rest, ["\f" | acc])
  defp string(<<?\\, ?n, rest::binary>>, acc), do: string(rest, ["\n" | acc])
  defp string(<<?\\, ?r, rest::binary>>, acc), do: string(rest, ["\r" | acc])
  defp string(<<?\\, ?t, rest::binary>>, acc), do: string(rest, ["\t" | acc])

  defp string(<<?\\, ?u, h::binary-size(4), ?\\, ?u, l::binary-size(4), rest::binary>> = text, acc) do
    hi = hex(h)
    lo = hex(l)

    if hi in 0xD800..0xDBFF and lo in 0xDC00..0xDFFF do
      c = 0x10000 + ((hi - 0xD800) <<< 10) + (lo - 0xDC00)
      string(rest, [<<c::utf8>> | acc])
    else
      <<_::binary-size(6), rest::binary>> = text
      string(rest, [code_point(hi) | acc])
    end
  end

  defp string(<<?\\, ?u, h::binary-size(4), rest::binary>>, acc),
    do: string(rest, [code_point(hex(h)) | acc])

  defp string(<<c, _::binary>>, _) when c < 0x20, do: fail("string: control character")

  defp string(text, acc) do
    # The longest run without a quote, a backslash or a control character, taken whole.
    case :binary.match(text, ["\"", "\\"]) do
      {0, _} -> fail("string: bad escape")
      {n, _} -> take(text, n, acc)
      :nomatch -> fail("string: unterminated")
    end
  end

  defp take(text, n, acc) do
    <<run::binary-size(n), rest::binary>> = text

    if Enum.any?(:binary.bin_to_list(run), &(&1 < 0x20)) do
      fail("string: control character")
    end

    string(rest, [run | acc])
  end

  # A surrogate alone has no UTF-8 form: it is kept as the three bytes UTF-8 would give it.
  defp code_point(c) when c in 0xD800..0xDFFF,
    do: <<0xE0 ||| c >>> 12, 0x80 ||| (c >>> 6 &&& 0x3F), 0x80 ||| (c &&& 0x3F)>>

  defp code_point(c), do: <<c::utf8>>

  defp hex(h) do
    case Integer.parse(h, 16) do
      {n, ""} -> n
      _ -> fail("string: bad \\u escape")
    end
  end

  defp number(text) do
    {num, rest} = number_text(text, 0)
    <<t::binary-size(num), _::binary>> = text

    value =
      case Integer.parse(t) do
        # An integer whose text Elixir writes back the same way ("-0" does not: kept as text).
        {n, ""} -> if Integer.to_string(n) == t, do: n, else: {:number, t}
        _ -> {:number, t}
      end

    {value, rest}
  end

  defp number_text(text, n) do
    case text do
      <<_::binary-size(n), c, _::binary>> when c in ?0..?9 or c in [?-, ?+, ?., ?e, ?E] ->
        number_text(text, n + 1)

      <<_::binary-size(n), rest::binary>> ->
        t = binary_part(text, 0, n)

        if Regex.match?(~r/\A-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?\z/, t),
          do: {n, rest},
          else: fail("bad number #{inspect(t)}")
    end
  end

  defp fail(why), do: raise(DecodeError, message: why)

  # --- encoding ---------------------------------------------------------------------

  @doc "The compact JSON text of a value decode!/1 could have returned, as iodata."
  def encode(nil), do: "null"
  def encode(true), do: "true"
  def encode(false), do: "false"
  def encode(n) when is_integer(n), do: Integer.to_string(n)
  def encode({:number, text}), do: text
  def encode(s) when is_binary(s), do: [?", escape(s, []), ?"]
  def encode(l) when is_list(l), do: [?[, Enum.map_intersperse(l, ?,, &encode/1), ?]]

  def encode(m) when is_map(m) do
    pairs = Enum.map_intersperse(m, ?,, fn {k, v} -> [encode(k), ?:, encode(v)] end)
    [?{, pairs, ?}]
  end

  defp escape(<<>>, acc), do: Enum.reverse(acc)
  defp escape(<<?", rest::binary>>, acc), do: escape(rest, ["\\\"" | acc])
  defp escape(<<?\\, rest::binary>>, acc), do: escape(rest, ["\\\\" | acc])
  defp escape(<<c, rest::binary>>, acc) when c < 0x20, do: escape(rest, [u(c) | acc])
  defp escape(<<c, rest::binary>>, acc) when c < 0x80, do: escape(rest, [c | acc])
  defp escape(<<c::utf8, rest::binary>>, acc), do: escape(rest, [<<c::utf8>> | acc])

  # The three-byte form of a lone surrogate (see code_point/1) goes back out as its escape.
  defp escape(<<0xED, b, c, rest::binary>>, acc) when b >= 0xA0,
    do: escape(rest, [u(0xD000 ||| (b &&& 0x3F) <<< 6 ||| (c &&& 0x3F)) | acc])

  defp escape(<<c, rest::binary>>, acc), do: escape(rest, [u(c) | acc])

  defp u(c), do: "\\u" <> String.pad_leading(Integer.to_string(c, 16), 4, "0")
end
