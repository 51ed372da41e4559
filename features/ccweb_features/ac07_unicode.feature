@AC-7
Feature: AC-7 Lengths are Unicode code points
  Every length (contentChars, originalChars, totalChars, the budget) counts Unicode code
  points. An emoji outside the Basic Multilingual Plane is one code point, not two UTF-16
  units, and truncation never splits it. Grapheme clusters are not a unit: a ZWJ family
  counts each of its code points. A lone surrogate stored in the file counts one and is
  never dropped, split or an error; it should come back intact (U+FFFD is allowed, D-3).

  @UNI-1
  Scenario Outline: Characters outside the BMP count as one
    Given a conversation "alpha" with the messages:
      | role | content   |
      | user | <content> |
    When I call the tool with arguments:
      """
      {"conversationId": "{alpha}"}
      """
    Then the items are:
      | content   | contentChars | originalChars | truncated |
      | <content> | <chars>      | <chars>       | false     |

    Examples:
      | content                  | chars |
      | 😀                        | 1     |
      | 😀😀😀                     | 3     |
      | 𝄞 music                   | 7     |
      | 𠜎𠜱𠝹                      | 3     |
      | 中文输入                   | 4     |
      | \u{1F44D}\u{1F3FD}        | 2     |

  @UNI-1
  Scenario: Truncation keeps whole emoji
    Given a conversation "alpha" with the messages:
      | role | content      |
      | user | 😀😀😀😀😀 |
    When I call the tool with arguments:
      """
      {"conversationId": "{alpha}", "maxChars": 3}
      """
    Then the items are:
      | content | contentChars | originalChars | truncated |
      | 😀😀😀  | 3            | 5             | true      |
    And the result has:
      | field      | value |
      | totalChars | 3     |
      | hasMore    | true  |

  @UNI-1 @BUD-1
  Scenario: The budget counts an emoji once
    Given a conversation "alpha" with the messages:
      | role | content |
      | user | ab      |
      | user | 😀😀    |
    When I call the tool with arguments:
      """
      {"conversationId": "{alpha}", "maxChars": 4}
      """
    Then the items are:
      | content | contentChars | originalChars | truncated |
      | ab      | 2            | 2             | false     |
      | 😀😀    | 2            | 2             | false     |
    And the result has:
      | field   | value |
      | hasMore | false |

  @UNI-2
  Scenario: A ZWJ family counts each code point and may be cut inside
    Given a conversation "alpha" with the messages:
      | role | content                                                  |
      | user | \u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}\u{200D}\u{1F466} |
    When I call the tool with arguments:
      """
      {"conversationId": "{alpha}", "maxChars": 3}
      """
    Then the items are:
      | content                      | contentChars | originalChars | truncated |
      | \u{1F468}\u{200D}\u{1F469}   | 3            | 7             | true      |

  @UNI-2
  Scenario: Combining marks are code points of their own
    Given a conversation "alpha" with the messages:
      | role | content                  |
      | user | e\u{301}e\u{301}e\u{301} |
    When I call the tool with arguments:
      """
      {"conversationId": "{alpha}", "maxChars": 5}
      """
    Then the items are:
      | content                | contentChars | originalChars | truncated |
      | e\u{301}e\u{301}e      | 5            | 6             | true      |

  @UNI-1
  Scenario: An emoji stored as an escaped surrogate pair is one code point
    Given a conversation "alpha" whose file is:
      """
      {"id": "{alpha}", "messages": [{"role": "user", "content": "\ud83d\uDE00\ud83d\ude00 ok"}]}
      """
    When I call the tool with arguments:
      """
      {"conversationId": "{alpha}", "maxChars": 1}
      """
    Then the items are:
      | content | contentChars | originalChars | truncated |
      | 😀      | 1            | 5             | true      |

  @UNI-3
  Scenario: A lone surrogate counts one and is never dropped, split or an error
    Given a conversation "alpha" whose file is:
      """
      {"id": "{alpha}", "messages": [{"role": "user", "content": "a\ud800b\udc00c"}]}
      """
    When I call the tool with arguments:
      """
      {"conversationId": "{alpha}"}
      """
    Then the items are:
      | content                   | contentChars | originalChars | truncated |
      | a\u{D800}b\u{DC00}c       | 5            | 5             | false     |

  @UNI-4 @should
  Scenario: A lone surrogate comes back intact
    Given a conversation "alpha" whose file is:
      """
      {"id": "{alpha}", "messages": [{"role": "user", "content": "a\ud800b\udc00c"}]}
      """
    When I call the tool with arguments:
      """
      {"conversationId": "{alpha}"}
      """
    Then the item contents are exactly, lone surrogates included:
      | content                   |
      | a\u{D800}b\u{DC00}c       |
