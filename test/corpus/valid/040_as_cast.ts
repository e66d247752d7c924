const raw: unknown = JSON.parse('{"id": 7}');
(raw as { id: number }).id
