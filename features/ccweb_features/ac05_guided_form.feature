@AC-5
Feature: AC-5 Guided forms: the pending card is excluded, the submitted answer included
  cc-web can ask the user a question through a guided form. While it waits, the card is
  stored as an assistant message: it is not a user input. Once the user submits it, the
  answer arrives through the normal input path and is stored as a plain user message,
  which is a user input like any other.

  @SEL-4
  Scenario: A card still waiting for the user is not returned
    Given a conversation "alpha" with the messages:
      | role      | content                                                       |
      | user      | set up CI                                                     |
      | assistant | {"type":"guided_form","fields":[{"name":"provider"}]}         |
    When I call the tool with arguments:
      """
      {"conversationId": "{alpha}"}
      """
    Then the item contents are:
      | content   |
      | set up CI |

  @SEL-4 @SEL-5
  Scenario: The submitted answer is returned and the card is not
    Given a conversation "alpha" with the messages:
      | role      | content                                               | timestamp                |
      | user      | set up CI                                             | 2026-11-30T09:00:00.000Z |
      | assistant | {"type":"guided_form","fields":[{"name":"provider"}]} | 2026-11-30T09:00:05.000Z |
      | user      | provider: GitHub Actions                              | 2026-11-30T09:01:00.000Z |
    When I call the tool with arguments:
      """
      {"conversationId": "{alpha}"}
      """
    Then the result has:
      | field         | value |
      | returnedCount | 2     |
      | totalChars    | 33    |
      | hasMore       | false |
    And the items are:
      | content                  | createdAt                | truncated |
      | set up CI                | 2026-11-30T09:00:00.000Z | false     |
      | provider: GitHub Actions | 2026-11-30T09:01:00.000Z | false     |
