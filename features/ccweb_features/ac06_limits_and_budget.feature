@AC-6
Feature: AC-6 limit and maxChars: defaults, bounds, and a hard total
  limit (1 to 50, default 15) bounds how many inputs are considered; maxChars (1 to 1000,
  default 1000) bounds the total length of all returned contents, in code points. The
  budget is spent from the newest input backwards; every input that fits is returned
  whole. Values outside the bounds are rejected, never clamped.

  Background:
    Given a conversation "alpha" with 3 user messages "input 1" to "input 3"

  @ARG-1
  Scenario: Defaults are applied and echoed
    When I call the tool with arguments:
      """
      {"conversationId": "{alpha}"}
      """
    Then the result has:
      | field          | value |
      | requestedLimit | 15    |
      | maxChars       | 1000  |
      | totalChars     | 21    |

  @ARG-1 @ARG-2
  Scenario Outline: Values at the bounds are accepted and echoed
    When I call the tool with arguments:
      """
      {"conversationId": "{alpha}", "limit": <limit>, "maxChars": <maxChars>}
      """
    Then the result has:
      | field          | value      |
      | requestedLimit | <limit>    |
      | maxChars       | <maxChars> |
      | returnedCount  | <count>    |
      | totalChars     | <total>    |

    Examples:
      | limit | maxChars | count | total |
      | 1     | 1        | 1     | 1     |
      | 50    | 1000     | 3     | 21    |
      | 1     | 1000     | 1     | 7     |
      | 50    | 1        | 1     | 1     |

  @ARG-2
  Scenario Outline: Values outside the bounds are rejected, not clamped
    When I call the tool with arguments:
      """
      {"conversationId": "{alpha}", "<field>": <value>}
      """
    Then the error code is "invalid_arguments"
    And the error field is "<field>"

    Examples:
      | field    | value |
      | limit    | 0     |
      | limit    | 51    |
      | limit    | -1    |
      | limit    | 1000000000000 |
      | limit    | 4294967311 |
      | maxChars | 4294968296 |
      | maxChars | 0     |
      | maxChars | 1001  |
      | maxChars | -5    |

  @BUD-1 @BUD-4
  Scenario: Inputs that fit are returned whole, newest first, within the budget
    Given a conversation "beta" with the messages:
      | role | content    |
      | user | aaaaaaaaaa |
      | user | bbbbbbbbbb |
      | user | cccccccccc |
    When I call the tool with arguments:
      """
      {"conversationId": "{beta}", "maxChars": 20}
      """
    Then the result has:
      | field         | value |
      | totalChars    | 20    |
      | returnedCount | 2     |
      | hasMore       | true  |
    And the items are:
      | content    | contentChars | originalChars | truncated |
      | bbbbbbbbbb | 10           | 10            | false     |
      | cccccccccc | 10           | 10            | false     |

  @BUD-4
  Scenario: The total never exceeds maxChars, even with one long input
    Given a conversation "beta" with a user message of 5000 "x"
    When I call the tool with arguments:
      """
      {"conversationId": "{beta}"}
      """
    Then the result has:
      | field         | value |
      | totalChars    | 1000  |
      | returnedCount | 1     |
      | hasMore       | true  |
    And the items are:
      | contentChars | originalChars | truncated |
      | 1000         | 5000          | true      |

  @BUD-1
  Scenario: The budget is not spent on the oldest inputs first
    Given a conversation "beta" with the messages:
      | role | content |
      | user | old old |
      | user | new     |
    When I call the tool with arguments:
      """
      {"conversationId": "{beta}", "maxChars": 3}
      """
    Then the items are:
      | content | contentChars | originalChars | truncated |
      | new     | 3            | 3             | false     |
    And the result has:
      | field   | value |
      | hasMore | true  |
