@AC-8
Feature: AC-8 Truncation, hasMore, counters and echoes are exact
  The result is precise enough for a regression test to assert every field. The first
  input that does not fit the remaining budget is cut to exactly the remaining code points
  and marked truncated, and nothing older is added; with no budget left nothing is added
  at all. hasMore says whether any candidate was left out or cut. messageId and createdAt
  are copied from the stored message, never reformatted.

  @BUD-2 @RES-1 @RES-2 @RES-3
  Scenario: The whole result when the oldest returned input is cut
    Given a conversation "alpha" with the messages:
      | role | content          |
      | user | the first input  |
      | user | the second input |
      | user | third            |
    When I call the tool with arguments:
      """
      {"conversationId": "{alpha}", "maxChars": 12}
      """
    Then the result is exactly:
      """
      {
        "ok": true,
        "conversationId": "{alpha}",
        "requestedLimit": 15,
        "maxChars": 12,
        "totalChars": 12,
        "returnedCount": 2,
        "hasMore": true,
        "items": [
          {"messageId": null, "createdAt": null, "content": "the sec", "contentChars": 7, "originalChars": 16, "truncated": true},
          {"messageId": null, "createdAt": null, "content": "third", "contentChars": 5, "originalChars": 5, "truncated": false}
        ]
      }
      """

  @BUD-3 @RES-3
  Scenario: A budget used up exactly adds no empty item
    Given a conversation "alpha" with the messages:
      | role | content |
      | user | older   |
      | user | 12345   |
    When I call the tool with arguments:
      """
      {"conversationId": "{alpha}", "maxChars": 5}
      """
    Then the items are:
      | content | contentChars | originalChars | truncated |
      | 12345   | 5            | 5             | false     |
    And the result has:
      | field         | value |
      | returnedCount | 1     |
      | totalChars    | 5     |
      | hasMore       | true  |

  @BUD-2
  Scenario: After a cut, older inputs that would fit are not added
    Given a conversation "alpha" with the messages:
      | role | content      |
      | user | a            |
      | user | a long input |
      | user | new          |
    When I call the tool with arguments:
      """
      {"conversationId": "{alpha}", "maxChars": 6}
      """
    Then the items are:
      | content | contentChars | originalChars | truncated |
      | a l     | 3            | 12            | true      |
      | new     | 3            | 3             | false     |

  @RES-3
  Scenario Outline: hasMore tells whether any candidate was left out or cut
    Given a conversation "alpha" with the messages:
      | role | content |
      | user | one     |
      | user | two     |
      | user | three   |
    When I call the tool with arguments:
      """
      {"conversationId": "{alpha}", "limit": <limit>, "maxChars": <maxChars>}
      """
    Then the result has:
      | field         | value     |
      | hasMore       | <hasMore> |
      | returnedCount | <count>   |

    Examples:
      | limit | maxChars | hasMore | count |
      | 3     | 11       | false   | 3     |
      | 3     | 10       | true    | 3     |
      | 2     | 1000     | true    | 2     |
      | 3     | 8        | true    | 2     |
      | 3     | 5        | true    | 1     |

  @RES-4 @RES-5
  Scenario: messageId and createdAt are copied as stored
    Given a conversation "alpha" whose file is:
      """
      {"id": "{alpha}", "messages": [
        {"role": "user", "content": "m1", "id": "msg-1", "timestamp": "2026-11-30T09:00:00.000Z"},
        {"role": "user", "content": "m2", "id": "", "timestamp": ""},
        {"role": "user", "content": "m3", "id": 17, "timestamp": null, "createdAt": "Mon, 30 Nov 2026 09:02:00 GMT"},
        {"role": "user", "content": "m4", "timestamp": 1764493320000},
        {"role": "user", "content": "m5", "timestamp": "2026-11-30T10:00:00+01:00", "createdAt": "ignored"},
        {"role": "user", "content": "m6", "createdAt": "", "id": ["x"]}
      ]}
      """
    When I call the tool with arguments:
      """
      {"conversationId": "{alpha}"}
      """
    Then the items are:
      | content | messageId | createdAt                     |
      | m1      | msg-1     | 2026-11-30T09:00:00.000Z      |
      | m2      | null      | null                          |
      | m3      | null      | Mon, 30 Nov 2026 09:02:00 GMT |
      | m4      | null      | null                          |
      | m5      | null      | 2026-11-30T10:00:00+01:00     |
      | m6      | null      | null                          |

  @RES-6
  Scenario Outline: A conversation without candidates is an empty success
    Given a conversation "alpha" whose file is:
      """
      {"id": "{alpha}", <messages>}
      """
    When I call the tool with arguments:
      """
      {"conversationId": "{alpha}", "limit": 3}
      """
    Then the result is exactly:
      """
      {"ok": true, "conversationId": "{alpha}", "requestedLimit": 3, "maxChars": 1000, "totalChars": 0, "returnedCount": 0, "hasMore": false, "items": []}
      """

    Examples:
      | messages |
      | "messages": [] |
      | "messages": [{"role": "assistant", "content": "hi"}] |
      | "messages": null |
      | "title": "no messages field" |
