@AC-3
Feature: AC-3 The latest 15 user inputs, oldest first
  By default the tool considers only the last 15 candidate user inputs and returns them in
  the order they were stored, oldest first, so that the model can follow how the request
  evolved. Older inputs are reported through hasMore, not returned.

  @SEL-6 @SEL-7 @ARG-1
  Scenario: Twenty inputs give the latest fifteen, oldest first
    Given a conversation "alpha" with 20 user messages "input 1" to "input 20"
    When I call the tool with arguments:
      """
      {"conversationId": "{alpha}"}
      """
    Then the result has:
      | field          | value |
      | requestedLimit | 15    |
      | returnedCount  | 15    |
      | hasMore        | true  |
      | totalChars     | 116   |
    And the item contents are "input 6" to "input 20"

  @SEL-6
  Scenario: Exactly fifteen inputs are all returned and nothing more is reported
    Given a conversation "alpha" with 15 user messages "input 1" to "input 15"
    When I call the tool with arguments:
      """
      {"conversationId": "{alpha}"}
      """
    Then the result has:
      | field         | value |
      | returnedCount | 15    |
      | hasMore       | false |
    And the item contents are "input 1" to "input 15"

  @SEL-6 @SEL-7
  Scenario: The window counts candidates, not stored messages
    Given a conversation "alpha" with the messages:
      | role      | content  |
      | user      | first    |
      | assistant | answer 1 |
      | user      | second   |
      | assistant | answer 2 |
      | user      | \u{20}   |
      | user      | third    |
    When I call the tool with arguments:
      """
      {"conversationId": "{alpha}", "limit": 2}
      """
    Then the result has:
      | field          | value |
      | requestedLimit | 2     |
      | returnedCount  | 2     |
      | hasMore        | true  |
    And the item contents are:
      | content |
      | second  |
      | third   |

  @SEL-7
  Scenario: Items keep the stored order, not the timestamps' order
    Given a conversation "alpha" with the messages:
      | role | content | timestamp                |
      | user | later   | 2026-11-30T10:00:00.000Z |
      | user | earlier | 2026-11-30T09:00:00.000Z |
    When I call the tool with arguments:
      """
      {"conversationId": "{alpha}"}
      """
    Then the items are:
      | content | createdAt                |
      | later   | 2026-11-30T10:00:00.000Z |
      | earlier | 2026-11-30T09:00:00.000Z |

  @SEL-6
  Scenario: A limit larger than the number of candidates returns them all
    Given a conversation "alpha" with 3 user messages "input 1" to "input 3"
    When I call the tool with arguments:
      """
      {"conversationId": "{alpha}", "limit": 50}
      """
    Then the result has:
      | field          | value |
      | requestedLimit | 50    |
      | returnedCount  | 3     |
      | hasMore        | false |
    And the item contents are "input 1" to "input 3"
