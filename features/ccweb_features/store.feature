@STORE
Feature: The persisted conversation file is read safely
  The tool reads <sessions dir>/<id>.json as cc-web writes it: a UTF-8 JSON object whose
  messages field is an array. A leading byte-order mark is ignored; absent or null
  messages mean no messages; fields the contract does not name are ignored. A U+FFFD stored
  in the file is an ordinary character. A file that cannot be used is reported as
  conversation_unreadable, never as a crash. cc-web saves a
  session non-atomically (truncate, then write), so a call during a save should read again
  for at least 200 ms before it answers conversation_unreadable. A file left unchanged for
  seconds, its modification and change times both old, is read afresh once it is saved again
  (REG-2): a cache that trusts a settled file shows only on a file that really aged, so this
  scenario comes last, and its file is written when the run starts.

  @STO-1
  Scenario: A file that is not a UTF-8 JSON object is unreadable
    Given one conversation per row, each stored as the bytes of its row:
      | bytes                                              |
      | {"messages": [                                     |
      | not json at all                                    |
      |                                                    |
      | [{"role": "user", "content": "x"}]                 |
      | "a string"                                         |
      | null                                               |
      | 42                                                 |
      | {"messages": [{"role": "user", "content": "\\xff\\xfe"}]} |
      | \\xff\\xfe{\\x00"\\x00}\\x00                       |
      | {"messages": [{"role": "user", "content": "ok"}]} trailing |
      | {"messages": [], "n": NaN}                         |
      | {"messages": [{"role": "user", "content": "\\xed\\xa0\\x80"}]} |
    When I call the tool for each of them, the calls in flight together
    Then every answer has the error code "conversation_unreadable"

  @STO-2
  Scenario: messages that is not an array, null or absent is unreadable
    Given one conversation per row, each a file whose messages field is the row's JSON:
      | messages                                |
      | "user: hello"                           |
      | {"0": {"role": "user", "content": "x"}} |
      | 3                                       |
      | true                                    |
    When I call the tool for each of them, the calls in flight together
    Then every answer has the error code "conversation_unreadable"

  @STO-2
  Scenario Outline: Absent or null messages mean no messages
    Given a conversation "alpha" whose file is:
      """
      {"id": "{alpha}"<rest>}
      """
    When I call the tool with arguments:
      """
      {"conversationId": "{alpha}"}
      """
    Then the result has:
      | field         | value |
      | returnedCount | 0     |
      | hasMore       | false |

    Examples:
      | rest              |
      | , "messages": null |
      |                   |

  @STO-3
  Scenario: A leading UTF-8 byte-order mark is ignored
    Given conversation "alpha" is stored as the bytes "\xef\xbb\xbf{\"messages\": [{\"role\": \"user\", \"content\": \"with BOM\"}]}"
    When I call the tool with arguments:
      """
      {"conversationId": "{alpha}"}
      """
    Then the item contents are:
      | content  |
      | with BOM |

  @STO-3
  Scenario: One byte-order mark before raw UTF-8 is ignored
    Given conversation "alpha" is stored as the bytes "\xef\xbb\xbf{\"messages\":[{\"role\":\"user\",\"content\":\"\xe4\xb8\xad\xe6\x96\x87 \xf0\x9f\x98\x80\"}]}"
    When I call the tool with arguments:
      """
      {"conversationId": "{alpha}"}
      """
    Then the item contents are:
      | content |
      | 中文 😀  |

  @STO-3
  Scenario: Half a byte-order mark, or two of them, is not JSON
    Given one conversation per row, each stored as the bytes of its row:
      | bytes                                                                   |
      | \\xef\\xbb{"messages": [{"role": "user", "content": "x"}]}             |
      | \\xbb\\xbf{"messages": [{"role": "user", "content": "x"}]}             |
      | \\xef\\xbb\\xbf\\xef\\xbb\\xbf{"messages": [{"role": "user", "content": "x"}]} |
    When I call the tool for each of them, the calls in flight together
    Then every answer has the error code "conversation_unreadable"

  @STO-1
  Scenario: A compact file in raw UTF-8 is read
    Given a conversation "alpha" written compactly with the messages:
      | role      | content            |
      | user      | 修复登录页的 bug 🐛      |
      | assistant | 好的，已修复            |
      | user      | 再加一个单元测试 ✅       |
    When I call the tool with arguments:
      """
      {"conversationId": "{alpha}"}
      """
    Then the item contents are:
      | content       |
      | 修复登录页的 bug 🐛 |
      | 再加一个单元测试 ✅  |

  @STO-1
  Scenario: A U+FFFD stored in the file is valid UTF-8, never a sign of an unreadable file
    Given conversation "alpha" is stored as the bytes "{\"messages\":[{\"role\":\"user\",\"content\":\"a\xef\xbf\xbdb\"}]}"
    When I call the tool with arguments:
      """
      {"conversationId": "{alpha}"}
      """
    Then the items are:
      | content    | contentChars | originalChars | truncated |
      | a\u{FFFD}b | 3            | 3             | false     |

  @SEL-8 @RES-2 @BUD-2
  Scenario Outline: A stored U+FFFD counts one code point and comes back as stored
    Given a conversation "alpha" with the messages:
      | role | content   |
      | user | <content> |
    When I call the tool with arguments:
      """
      {"conversationId": "{alpha}", "maxChars": <maxChars>}
      """
    Then the items are:
      | content    | contentChars | originalChars | truncated   |
      | <returned> | <chars>      | <original>    | <truncated> |

    Examples:
      | content                   | maxChars | returned                  | chars | original | truncated |
      | \u{FFFD}                  | 1000     | \u{FFFD}                  | 1     | 1        | false     |
      | fix \u{FFFD} in the title | 1000     | fix \u{FFFD} in the title | 18    | 18       | false     |
      | \u{FFFD}\u{FFFD}\u{FFFD}  | 2        | \u{FFFD}\u{FFFD}          | 2     | 3        | true      |

  @STO-1
  Scenario: A conversation past 64 KiB with characters across read-chunk boundaries is read
    Given a conversation "alpha" of 160 KiB with characters across the 4, 16 and 64 KiB boundaries and the newest user message "最新的需求 🚀"
    When I call the tool with arguments:
      """
      {"conversationId": "{alpha}"}
      """
    Then the item contents are:
      | content |
      | 最早的输入 😀 |
      | 最新的需求 🚀 |

  @STO-1
  Scenario: A file the server has no permission to read is unreadable
    Given a conversation "alpha" with the messages:
      | role | content |
      | user | private |
    And conversation "alpha" cannot be read by the server
    When I call the tool with arguments:
      """
      {"conversationId": "{alpha}"}
      """
    Then the error code is "conversation_unreadable"

  @STO-4
  Scenario: Fields the contract does not name are ignored
    Given a conversation "alpha" whose file is:
      """
      {
        "id": "{alpha}",
        "title": "A session",
        "created": "2026-11-30T09:00:00.000Z",
        "updated": "2026-11-30T09:30:00.000Z",
        "agent": "codex",
        "hasUnread": true,
        "pinned": {"deep": [1, 2, {"x": null}]},
        "messages": [
          {"role": "user", "content": "with an image", "timestamp": "2026-11-30T09:00:01.000Z",
           "attachments": [{"type": "image", "name": "shot.png", "size": 1024}]},
          {"role": "assistant", "content": "looking", "toolCalls": [{"name": "Read", "input": {"path": "a"}}]},
          {"role": "user", "content": "next", "timestamp": null, "edited": true, "meta": {"source": "web"}}
        ]
      }
      """
    When I call the tool with arguments:
      """
      {"conversationId": "{alpha}"}
      """
    Then the items are:
      | content       | createdAt                | messageId | truncated |
      | with an image | 2026-11-30T09:00:01.000Z | null      | false     |
      | next          | null                     | null      | false     |

  @STO-4 @SEL-1
  Scenario: Member names match exactly, so Messages, Role and Content are other members
    Given a conversation "alpha" whose file is:
      """
      {"id": "{alpha}",
       "messages": [
         {"Role": "user", "content": "no role member"},
         {"role": "user", "Content": "no content member"},
         {"role": "user", "content": "kept", "Timestamp": "2026-11-30T09:00:01.000Z", "ID": "m-1"}
       ],
       "Messages": [{"role": "user", "content": "from a member named Messages"}]}
      """
    When I call the tool with arguments:
      """
      {"conversationId": "{alpha}"}
      """
    Then the items are:
      | content | createdAt | messageId | truncated |
      | kept    | null      | null      | false     |

  @STO-4 @SEL-3
  Scenario: Unnamed fields are ignored in a file that also holds entries that are not messages
    Given a conversation "alpha" whose file is:
      """
      {"id": "{alpha}", "messages": [
        "a stray string",
        {"role": "user", "content": "with an image", "attachments": [{"type": "image", "name": "a.png"}]},
        {"role": "user", "content": "plain", "edited": true}
      ]}
      """
    When I call the tool with arguments:
      """
      {"conversationId": "{alpha}"}
      """
    Then the item contents are:
      | content       |
      | with an image |
      | plain         |

  @STO-1
  Scenario: A call during a non-atomic save answers the saved conversation or conversation_unreadable
    Given a conversation "alpha" of about 1024 KB whose newest user message is "the newest input"
    When I call the tool 40 times while conversation "alpha" is saved non-atomically every 5 ms, with arguments:
      """
      {"conversationId": "{alpha}", "limit": 1}
      """
    Then every answer has the item contents "the newest input" or the error code "conversation_unreadable"

  @STO-5 @should
  Scenario: A call during a non-atomic save that completes within 200 ms is never unreadable
    Given a conversation "alpha" of about 1024 KB whose newest user message is "the newest input"
    When I call the tool 20 times, each during a non-atomic save of conversation "alpha" that completes 50 ms after it began, with arguments:
      """
      {"conversationId": "{alpha}", "limit": 1}
      """
    And I call the tool 3 times, each during a non-atomic save of conversation "alpha" that completes 100 ms after it began, with arguments:
      """
      {"conversationId": "{alpha}", "limit": 1}
      """
    Then none of the answers has the error code "conversation_unreadable"

  @REG-2
  Scenario: A conversation unchanged for seconds, then saved in place at the same size and time, is visible
    Given a conversation "alpha" holding the user message "aaaa", unchanged for 3 seconds
    When I call the tool with arguments:
      """
      {"conversationId": "{alpha}"}
      """
    And conversation "alpha" is rewritten in place with "bbbb", keeping its size and modification time
    And I call the tool with arguments:
      """
      {"conversationId": "{alpha}"}
      """
    Then the item contents are:
      | content |
      | bbbb    |
